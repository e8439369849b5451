import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConversationMessages, type TConversationDetail, type TConversationSummary } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { adminSession, renderApp, userSession } from '../../../test/render-app';

// Issue 30 (ADR 094): Export (JSON/CSV) on the list with its filters and on a transcript; rows ticked and deleted together.
const FIRST_LOAD = { timeout: 10_000 };
vi.setConfig({ testTimeout: 60_000 });
const ID = (n: number) => `6f1c2f9e-1a2b-4c3d-8e4f-00000000000${n}`;

const row = (over: Partial<TConversationSummary>): TConversationSummary => ({
  id: ID(1),
  avatarId: 7,
  avatarName: 'Reception',
  ownerUserId: 3,
  startedAt: '2026-06-01T12:00:00.000Z',
  endedAt: '2026-06-01T12:01:30.000Z',
  durationSeconds: 90,
  channel: 'avatar-page',
  hostOrigin: null,
  locale: null,
  visitor: 'v-0123456789',
  turns: 2,
  outcome: 'hang-up',
  endCode: 'hang-up',
  voiceP50Ms: 700,
  ...over,
});

const avatars = () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }] });
const csv = () => new Response('\uFEFFsession_id\r\n', { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="conversations-2026-06-01.csv"' } });

function stubDownloads() {
  const createObjectURL = vi.fn((_blob: Blob) => 'blob:export');
  Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
  const clicks: string[] = [];
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    clicks.push(this.download);
  });
  return { createObjectURL, clicks, restore: () => click.mockRestore() };
}

describe('/conversations export and delete selected', () => {
  it('exports the current filters as CSV and JSON, saved under the name the server gives', async () => {
    const downloads = stubDownloads();
    const { requests } = renderApp({
      route: '/conversations?avatarId=7&outcome=hang-up',
      session: userSession,
      api: { 'GET /api/list_avatar': avatars, 'GET /api/list_conversation': () => json({ status: 'OK', conversations: [row({})], nextCursor: null }), 'GET /api/export_conversation': csv },
    });
    await screen.findByRole('table', { name: 'Conversations' }, FIRST_LOAD);
    await userEvent.click(screen.getByRole('button', { name: 'Export these conversations as CSV' }));
    await waitFor(() => expect(downloads.clicks).toEqual(['conversations-2026-06-01.csv']));
    const call = requests.find((r) => r.path.startsWith('/api/export_conversation'))!;
    expect(call.path).toBe('/api/export_conversation?format=csv&avatarId=7&outcome=hang-up');
    // The session's own credentials, as every call of the portal.
    expect(call.headers.authorization?.endsWith(`:${userSession.token}`)).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Export these conversations as JSON' }));
    await waitFor(() => expect(requests.some((r) => r.path === '/api/export_conversation?format=json&avatarId=7&outcome=hang-up')).toBe(true));
    downloads.restore();
  });

  it('deletes the ticked ended rows after a confirmation; open ones cannot be ticked', async () => {
    let listed = [row({ id: ID(1) }), row({ id: ID(2), startedAt: '2026-06-01T11:00:00.000Z' }), row({ id: ID(3), endedAt: null, durationSeconds: null, outcome: 'open', endCode: null })];
    const { requests } = renderApp({
      route: '/conversations',
      session: userSession,
      api: {
        'GET /api/list_avatar': avatars,
        'GET /api/list_conversation': () => json({ status: 'OK', conversations: listed, nextCursor: null }),
        'POST /api/del_conversation': (req) => {
          const { ids } = req.body as { ids: string[] };
          listed = listed.filter((c) => !ids.includes(c.id));
          return json({ status: 'OK', ids });
        },
      },
    });
    const table = await screen.findByRole('table', { name: 'Conversations' }, FIRST_LOAD);
    expect(within(table).getAllByRole('checkbox')).toHaveLength(3); // "all" + the two ended rows
    expect(screen.queryByRole('button', { name: /Delete selected/ })).not.toBeInTheDocument();
    await userEvent.click(within(table).getByRole('checkbox', { name: 'Select every ended conversation shown' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete selected (2)' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(ConversationMessages.deleteManyConfirm(2))).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ ids: [ID(1), ID(2)] }));
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Conversations' })).getAllByRole('row')).toHaveLength(2));
    expect(screen.queryByRole('button', { name: /Delete selected/ })).not.toBeInTheDocument();
  });

  it('a transcript exports itself', async () => {
    const downloads = stubDownloads();
    const detail: TConversationDetail = { ...row({}), canDelete: true, textRemoved: false, turnList: [], summary: null, pageFigures: null };
    const { requests } = renderApp({
      route: `/conversations/${ID(1)}`,
      session: userSession,
      api: { 'GET /api/get_conversation': () => json({ status: 'OK', conversation: detail }), 'GET /api/export_conversation': csv },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Export this conversation as JSON' }, FIRST_LOAD));
    await waitFor(() => expect(requests.some((r) => r.path === `/api/export_conversation?format=json&id=${ID(1)}`)).toBe(true));
    downloads.restore();
  });

  it('administrators: no export and no ticks on the every-account list', async () => {
    renderApp({
      route: '/conversations',
      session: adminSession,
      api: { 'GET /api/list_avatar': avatars, 'GET /api/admin/list_conversation': () => json({ status: 'OK', conversations: [row({})], nextCursor: null }) },
    });
    const table = await screen.findByRole('table', { name: 'Conversations' }, FIRST_LOAD);
    expect(within(table).queryAllByRole('checkbox')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: /Export/ })).not.toBeInTheDocument();
  });
});
