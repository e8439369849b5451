import { describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages } from '@persona/contract';
import { mountRefusal } from './refusal';

/** A frame of https://evil.example whose URL is `search`: what the refusal page sees of its parent. */
function framedWindow(search = '') {
  const posted: { message: unknown; targetOrigin: string }[] = [];
  const parent = { postMessage: (message: unknown, targetOrigin: string) => posted.push({ message, targetOrigin }) };
  const listeners: ((e: MessageEvent) => void)[] = [];
  const win = {
    parent,
    location: { search, ancestorOrigins: Object.assign(['https://evil.example'], { contains: () => true, item: () => 'https://evil.example' }) },
    document: { referrer: '' },
    addEventListener: (_: string, fn: (e: MessageEvent) => void) => listeners.push(fn),
    removeEventListener: () => undefined,
  } as unknown as Window;
  const deliver = async (data: unknown) => {
    for (const fn of listeners) fn({ data, origin: 'https://evil.example', source: parent } as unknown as MessageEvent);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { win, posted, deliver };
}

const message = LiveMessages[LiveCode.originNotAllowed];
const authFail = { eventName: 'auth-fail', eventParams: { code: LiveCode.originNotAllowed, message, failReason: expect.any(Number) } };

describe('the refusal page', () => {
  it('says why, with nothing to click, and tells a host that registered by URL at once, once', async () => {
    const root = document.createElement('div');
    const { win, posted, deliver } = framedWindow('?registerTrlEvents=auth-fail,trl-chat');
    mountRefusal(root, win);
    expect(root.querySelector('[role="alert"]')).toHaveTextContent(message);
    expect(root.querySelector('[role="alert"]')).toHaveTextContent('If https://evil.example is your website');
    expect(root.querySelectorAll('button, a, input, textarea, select, [tabindex]')).toHaveLength(0);
    expect(posted).toEqual([{ message: authFail, targetOrigin: 'https://evil.example' }]);
    await deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['auth-fail', 'error'] } });
    expect(posted.map((p) => (p.message as { eventName: string }).eventName)).toEqual(['auth-fail', 'error']);
  });

  it('tells a host that registers by message then, and answers every call with the refusal', async () => {
    const { win, posted, deliver } = framedWindow();
    mountRefusal(document.createElement('div'), win);
    expect(posted).toEqual([]);
    await deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['auth-fail'] } });
    expect(posted.map((p) => p.message)).toEqual([authFail]);
    await deliver({ eventName: 'trl-method-call', eventParams: { method: 'connect', args: [], callId: 'c1' } });
    await deliver({ eventName: 'trl-method-call', eventParams: { method: 'sendMessage', args: ['hi'], callId: 'c2' } });
    expect(posted.slice(1).map((p) => p.message)).toEqual([
      { eventName: 'trl-method-response', eventParams: { callId: 'c1', status: 'error', error: message } },
      { eventName: 'trl-method-response', eventParams: { callId: 'c2', status: 'error', error: message } },
    ]);
  });
});
