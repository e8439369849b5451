import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';
import { FakeSocket, admitted, pageConfig } from '../../../test/live-client-doubles';

describe('/chatWidget/{avatarId}', () => {
  beforeEach(() => {
    FakeSocket.reset();
    vi.stubGlobal('WebSocket', FakeSocket);
  });

  it('is a text-only conversation with the avatar, using the owner’s preview token', async () => {
    const { requests } = renderApp({
      route: '/chatWidget/12',
      session: userSession,
      api: {
        'GET /api/get_avatar': () => json({ status: 'OK', agent: { id: 12, token: 'preview-token' } }),
        'GET /api/live/avatars/12': () => json(pageConfig({ tokenRequired: true })),
        'POST /api/live/sessions': () => json(admitted(1)),
      },
    });
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    expect(requests.find((r) => r.path === '/api/live/sessions')?.body).toMatchObject({ avatarId: 12, token: 'preview-token', textOnly: true });
    const socket = FakeSocket.last();
    await waitFor(() => expect(socket.sent[0]).toMatchObject({ type: 'hello', textOnly: true }));
    socket.push({ type: 'ready', sessionId: 'sess-1', history: [], audioSampleRate: 0, echo: false, resumed: false });
    socket.push({ type: 'assistant', utt: 1, text: 'Hello!', final: true });
    expect(await screen.findByRole('log', { name: 'Conversation' })).toHaveTextContent('Hello!');
    // No stage, microphone or speaker in the chat-only widget.
    expect(screen.queryByRole('button', { name: /microphone/ })).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Message'), 'Hi');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(socket.sent.at(-1)).toMatchObject({ type: 'text', text: 'Hi' });
  });
});
