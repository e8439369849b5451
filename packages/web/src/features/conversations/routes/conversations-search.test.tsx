import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TConversationDetail, TConversationListItem } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

// The conversation search (ADR 098): the words in the URL, the matching turn under its row, the
// transcript opened with the words marked.
const ID_A = '6f1c2f9e-1a2b-4c3d-8e4f-000000000001';

const row = (over: Partial<TConversationListItem>): TConversationListItem => ({
  id: ID_A,
  avatarId: 7,
  avatarName: 'Reception',
  ownerUserId: 3,
  startedAt: '2026-06-01T12:00:00.000Z',
  endedAt: '2026-06-01T12:01:30.000Z',
  durationSeconds: 90,
  channel: 'avatar-page',
  hostOrigin: null,
  locale: 'en-GB',
  visitor: 'v-0123456789',
  turns: 2,
  outcome: 'hang-up',
  endCode: 'hang-up',
  voiceP50Ms: 700,
  ...over,
});

const avatars = () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }] });

describe('/conversations search', () => {
  it('searches on Enter through the URL, with the other filters, and shows what matched', async () => {
    const { requests } = renderApp({
      route: '/conversations?outcome=hang-up',
      session: userSession,
      api: {
        'GET /api/list_avatar': avatars,
        'GET /api/list_conversation': (req) =>
          req.path.includes('q=')
            ? json({
                status: 'OK',
                conversations: [row({ match: { turn: 1, role: 'visitor', snippet: [{ text: 'Can I get a ', hit: false }, { text: 'refund', hit: true }, { text: ' <b>now</b>?', hit: false }] } })],
                nextCursor: null,
              })
            : json({ status: 'OK', conversations: [row({})], nextCursor: null }),
      },
    });
    await screen.findByRole('table', { name: 'Conversations' });
    const box = screen.getByRole('searchbox', { name: 'Search what was said' });
    await userEvent.type(box, 'refund{Enter}');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/conversations?outcome=hang-up&q=refund'));
    await waitFor(() => expect(requests.some((r) => r.path === '/api/list_conversation?outcome=hang-up&q=refund')).toBe(true));

    const snippet = await screen.findByLabelText(/^What matched in the conversation of/);
    expect(snippet).toHaveTextContent('Visitor: Can I get a refund <b>now</b>?');
    // The searched word is marked; the rest is text (no markup from the transcript is read).
    expect(within(snippet).getByText('refund').tagName).toBe('MARK');
    expect(snippet.querySelector('b')).toBeNull();
    // The transcript opens with the words.
    expect(screen.getByRole('link', { name: /^Transcript of the conversation/ })).toHaveAttribute('href', `/conversations/${ID_A}?q=refund`);

    // Clearing the box lifts the search at once.
    await userEvent.clear(box);
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/conversations?outcome=hang-up'));
    expect(screen.queryByLabelText(/^What matched/)).not.toBeInTheDocument();
  });

  it('marks the matching turns of a transcript opened from a search', async () => {
    const detail: TConversationDetail = {
      ...row({}),
      canDelete: true,
      textRemoved: false,
      summary: null,
      pageFigures: null,
      turnList: [
        { role: 'avatar', text: 'Hello! How can I help?', at: '2026-06-01T12:00:01.000Z', interrupted: false, latency: null },
        { role: 'visitor', text: 'Can I get a refund?', at: '2026-06-01T12:00:10.000Z', interrupted: false, latency: null },
      ],
      matches: [{ turn: 1, parts: [{ text: 'Can I get a ', hit: false }, { text: 'refund', hit: true }, { text: '?', hit: false }] }],
    };
    const { requests } = renderApp({
      route: `/conversations/${ID_A}?q=refund`,
      session: userSession,
      api: { 'GET /api/get_conversation': () => json({ status: 'OK', conversation: detail }) },
    });
    const transcript = await screen.findByRole('list', { name: 'Transcript' });
    expect(requests.some((r) => r.path === `/api/get_conversation?id=${ID_A}&q=refund`)).toBe(true);
    expect(screen.getByText('1 turn holds “refund”: marked below.')).toBeInTheDocument();
    const turns = within(transcript).getAllByRole('listitem');
    expect(turns[1]).toHaveAttribute('aria-current', 'true');
    expect(turns[0]).not.toHaveAttribute('aria-current');
    expect(within(turns[1]!).getByText('refund').tagName).toBe('MARK');
    expect(screen.getByRole('link', { name: 'All conversations' })).toHaveAttribute('href', '/conversations?q=refund');
  });
});
