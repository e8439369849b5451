import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { KnowledgeMessages } from '@persona/contract';
import { json, mockFetch } from '../../../test/fetch-mock';
import { UrlTab } from './url-tab';

describe('Url tab', () => {
  it('with two URLs, the first click on Submit sends them (no blur needed)', async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch({
      'GET /api/token/jwt': () => json({ status: 'OK', jwtToken: 'jwt', expiresAt: new Date(Date.now() + 600_000).toISOString() }),
      'POST /knowledge': () => json({ status: 'FAIL', errors: ['stop here'] }, 500),
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } })}>
        <UrlTab collectionId={3} onSettled={vi.fn()} onBusy={vi.fn()} />
      </QueryClientProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Add URL' }));
    // A click with rows left invalid says so under each row, and sends nothing.
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(KnowledgeMessages.nameRequired)).toBeInTheDocument();
    expect(screen.getAllByText(KnowledgeMessages.urlInvalid)).toHaveLength(2);
    expect(requests.filter((r) => r.path === '/knowledge')).toHaveLength(0);
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Museum pages');
    const first = screen.getByRole('textbox', { name: 'URL 1' });
    await user.clear(first);
    await user.type(first, 'https://museum.example/lighthouse');
    const second = screen.getByRole('textbox', { name: 'URL 2' });
    await user.clear(second);
    await user.type(second, 'https://museum.example/opening-hours');
    // Straight from typing to the button, as a person does.
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(requests.some((r) => r.method === 'POST' && r.path === '/knowledge')).toBe(true));
    const sent = requests.find((r) => r.method === 'POST' && r.path === '/knowledge')!.body as { url: string }[];
    expect(sent.map((r) => r.url)).toEqual(['https://museum.example/lighthouse', 'https://museum.example/opening-hours']);
  });
});
