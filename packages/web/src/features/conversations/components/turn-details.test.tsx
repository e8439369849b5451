import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TConversationTurn } from '@persona/contract';
import { Transcript } from './transcript';

// The transcript's detail under each turn (ADR 102): errors shown, the rest folded behind a button.

const turns: TConversationTurn[] = [
  { role: 'visitor', text: 'Where is my order 42?', at: '2026-06-01T12:00:10.000Z', interrupted: false, latency: null, detail: { interims: ['Wear is my order for tea'], errors: [{ provider: 'deepgram', code: 'http-503', phase: 'listening' }] } },
  {
    role: 'avatar',
    text: 'It shipped yesterday',
    at: '2026-06-01T12:00:11.500Z',
    interrupted: true,
    latency: null,
    detail: {
      heardMs: 1_250,
      fullChars: 64,
      calls: [
        { name: 'lookup_order', arguments: '{"order":"42"}', ok: true, result: '{"status":"shipped"}' },
        { name: 'get_weather', arguments: '{}', ok: false, result: 'KeyError: city' },
      ],
      passages: [{ title: 'shipping.md', snippet: 'Orders ship within two days.' }],
    },
  },
  { role: 'avatar', text: 'Anything else?', at: '2026-06-01T12:00:20.000Z', interrupted: false, latency: null },
];

describe('a turn’s details in the transcript', () => {
  it('shows errors and how much was heard at once, and unfolds corrections, functions and passages on demand', async () => {
    render(<Transcript turns={turns} />);
    const items = [...screen.getByRole('list', { name: 'Transcript' }).children] as HTMLElement[];
    expect(items).toHaveLength(3);
    const [asked, answered, plain] = items as [HTMLElement, HTMLElement, HTMLElement];

    expect(within(asked).getByText('deepgram · http-503 (listening)')).toBeInTheDocument();
    expect(within(answered).getByText('Interrupted after 1.25 s: the visitor heard only this much (20 of 64 characters).')).toBeInTheDocument();
    expect(within(plain).queryByRole('button')).toBeNull();

    // Folded: the arguments are not shown until asked for.
    const fold = within(answered).getByRole('button', { name: '2 functions · 1 passage' });
    expect(fold).toHaveAttribute('aria-expanded', 'false');
    expect(within(answered).queryByText('{"order":"42"}')).toBeNull();
    await userEvent.click(fold);
    expect(fold).toHaveAttribute('aria-expanded', 'true');
    const functions = within(answered).getByRole('region', { name: 'Functions' });
    expect(within(functions).getByText('lookup_order')).toBeInTheDocument();
    expect(within(functions).getByText('{"order":"42"}')).toBeInTheDocument();
    expect(within(functions).getByText('{"status":"shipped"}')).toBeInTheDocument();
    expect(within(functions).getByText('Failed')).toBeInTheDocument();
    expect(within(functions).getByText('KeyError: city')).toBeInTheDocument();
    const knowledge = within(answered).getByRole('region', { name: 'Knowledge used' });
    expect(within(knowledge).getByText('shipping.md')).toBeInTheDocument();
    expect(within(knowledge).getByText('Orders ship within two days.')).toBeInTheDocument();

    await userEvent.click(within(asked).getByRole('button', { name: '1 correction' }));
    expect(within(within(asked).getByRole('region', { name: 'Heard first as' })).getByText('Wear is my order for tea')).toBeInTheDocument();
  });

  it('keeps the plain line for an interruption stored before details existed', () => {
    render(<Transcript turns={[{ role: 'avatar', text: 'We are open', at: '2026-06-01T12:00:11.500Z', interrupted: true, latency: null }]} />);
    expect(screen.getByText('Interrupted: the visitor heard only this much.')).toBeInTheDocument();
  });
});
