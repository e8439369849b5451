import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConversationMessages, type TConversationDetail, type TConversationSummary } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { adminSession, renderApp, userSession } from '../../../test/render-app';

const ID_A = '6f1c2f9e-1a2b-4c3d-8e4f-000000000001';
const ID_B = '6f1c2f9e-1a2b-4c3d-8e4f-000000000002';

const row = (over: Partial<TConversationSummary>): TConversationSummary => ({
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

const detail: TConversationDetail = {
  ...row({}),
  canDelete: true,
  textRemoved: false,
  summary: 'The visitor asked for the opening hours and was told nine to five.',
  pageFigures: { firstFrameMs: 850, avOffsetMs: 35, droppedFrames: 2 },
  turnList: [
    { role: 'avatar', text: 'Hello! How can I help?', at: '2026-06-01T12:00:01.000Z', interrupted: false, latency: null },
    { role: 'visitor', text: 'What are your opening hours?', at: '2026-06-01T12:00:10.000Z', interrupted: false, latency: { endOfUtteranceMs: 400, sttMs: 180, llmFirstTokenMs: 350, ttsFirstByteMs: 120, endToEndMs: 900 } },
    { role: 'avatar', text: 'We are open from nine', at: '2026-06-01T12:00:11.500Z', interrupted: true, latency: null },
  ],
};

const avatars = () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }, { id: 8, name: 'Sales' }] });

describe('/conversations', () => {
  it('lists the conversations with their facts, pages on with the cursor and filters through the URL', async () => {
    const { requests } = renderApp({
      route: '/conversations',
      session: userSession,
      api: {
        'GET /api/list_avatar': avatars,
        'GET /api/list_conversation': (req) =>
          req.path.includes('cursor=')
            ? json({ status: 'OK', conversations: [row({ id: ID_B, avatarName: 'Sales', channel: 'embed', hostOrigin: 'https://shop.example', outcome: 'error', endCode: 'worker-lost', voiceP50Ms: null })], nextCursor: null })
            : json({ status: 'OK', conversations: [row({})], nextCursor: `1780315200000.${ID_A}` }),
      },
    });
    const table = await screen.findByRole('table', { name: 'Conversations' });
    expect(within(table).getByText('Reception')).toBeInTheDocument();
    expect(within(table).getByText('1:30')).toBeInTheDocument();
    expect(within(table).getByText('700 ms')).toBeInTheDocument();
    expect(within(table).getByText('Hung up')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await within(table).findByText('Error · worker-lost')).toBeInTheDocument();
    expect(within(table).getByText('https://shop.example')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(requests.some((r) => r.path.includes(`cursor=1780315200000.${ID_A}`))).toBe(true);

    await userEvent.click(screen.getByRole('switch', { name: 'Errors only' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/conversations?hasErrors=true'));
    await waitFor(() => expect(requests.some((r) => r.path === '/api/list_conversation?hasErrors=true')).toBe(true));
  });

  it('asks the admin path for administrators, and says when nothing matches', async () => {
    const { requests } = renderApp({
      route: '/conversations?avatarId=7&outcome=idle',
      session: adminSession,
      api: { 'GET /api/list_avatar': avatars, 'GET /api/admin/list_conversation': () => json({ status: 'OK', conversations: [], nextCursor: null }) },
    });
    expect(await screen.findByText('No conversation matches these filters')).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/admin/list_conversation?avatarId=7&outcome=idle')).toBe(true);
  });
});

describe('/conversations/:id', () => {
  it('shows the facts and each turn, and deletes after a confirmation', async () => {
    const { requests } = renderApp({
      route: `/conversations/${ID_A}`,
      session: userSession,
      api: {
        'GET /api/get_conversation': () => json({ status: 'OK', conversation: detail }),
        'POST /api/del_conversation': () => json({ status: 'OK', id: ID_A }),
        'GET /api/list_avatar': avatars,
        'GET /api/list_conversation': () => json({ status: 'OK', conversations: [], nextCursor: null }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Conversation with Reception' })).toBeInTheDocument();
    const facts = screen.getByRole('region', { name: 'Conversation facts' });
    expect(within(facts).getByText('v-0123456789')).toBeInTheDocument();
    expect(within(facts).getByText('Avatar page')).toBeInTheDocument();
    // ADR 099: the session's summary and the page's own figures, above the transcript.
    const summary = screen.getByRole('region', { name: 'Summary' });
    expect(within(summary).getByText('The visitor asked for the opening hours and was told nine to five.')).toBeInTheDocument();
    expect(within(summary).getByText('850 ms')).toBeInTheDocument();
    expect(within(summary).getByText('35 ms')).toBeInTheDocument();
    expect(summary.compareDocumentPosition(screen.getByRole('list', { name: 'Transcript' })) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    const transcript = screen.getByRole('list', { name: 'Transcript' });
    expect(within(transcript).getAllByRole('listitem')).toHaveLength(3);
    expect(within(transcript).getByText('What are your opening hours?')).toBeInTheDocument();
    expect(within(transcript).getByText('Interrupted: the visitor heard only this much.')).toBeInTheDocument();
    expect(within(transcript).getByText('Voice to voice 900 ms')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(ConversationMessages.deleteConfirm)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/conversations'));
    expect(requests.find((r) => r.method === 'POST' && r.path === '/api/del_conversation')?.body).toEqual({ id: ID_A });
  });

  it('offers no delete for a conversation the caller does not own, and says when one does not exist', async () => {
    renderApp({ route: `/conversations/${ID_B}`, session: adminSession, api: { 'GET /api/admin/get_conversation': () => json({ status: 'OK', conversation: { ...detail, id: ID_B, canDelete: false } }) } });
    expect(await screen.findByRole('heading', { name: 'Conversation with Reception' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete' })).not.toBeInTheDocument();
  });

  it('shows the not-found text for a malformed id without asking the server', async () => {
    const { requests } = renderApp({ route: '/conversations/not-an-id', session: userSession });
    expect(await screen.findByText(ConversationMessages.notFound)).toBeInTheDocument();
    expect(requests.some((r) => r.path.includes('conversation'))).toBe(false);
  });
});
