import { errorMessages } from '../../../lib/api-client';
import { appBasePath } from '../../../lib/config';
import { LOGIN_AS_WAIT_MS, LoginAsMessage, isLoginAsReady, type LoginAsHandover } from '../../../lib/login-as-handover';
import { paths } from '../../../lib/paths';
import { createLoginAsTicket } from '../api/create-login-as-ticket';

export const POPUP_BLOCKED = 'The browser blocked the new tab. Allow pop-ups for this portal and try again.';
export const TAB_SILENT = 'The new tab did not open the portal. Please try again.';

/** Where the new tab opens: the login-as page, with nothing secret in its address. */
export const loginAsTabUrl = () => `${appBasePath === '/' ? '' : appBasePath}${paths.loginAs}`;

/**
 * "Sign in as": opens the portal in a new tab (session-only there) and hands that tab a one-time
 * ticket by postMessage once it says it is ready. Must be called from the click itself (pop-up
 * rules). Resolves when the ticket was handed over; rejects with what to tell the administrator.
 */
export function openLoginAs(userId: number): Promise<void> {
  const tab = window.open(loginAsTabUrl(), '_blank');
  if (!tab) return Promise.reject(new Error(POPUP_BLOCKED));
  const origin = window.location.origin;
  return new Promise<void>((resolve, reject) => {
    let isReady = false;
    let handover: LoginAsHandover | undefined;
    const finish = (error?: Error) => {
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const send = () => {
      if (!isReady || !handover) return;
      tab.postMessage(handover, origin);
      finish(handover.type === LoginAsMessage.failed ? new Error(handover.errors.join(' ')) : undefined);
    };
    const onMessage = (event: MessageEvent) => {
      if (event.source !== tab || event.origin !== origin || !isLoginAsReady(event.data)) return;
      isReady = true;
      send();
    };
    const timer = setTimeout(() => finish(new Error(TAB_SILENT)), LOGIN_AS_WAIT_MS);
    window.addEventListener('message', onMessage);
    createLoginAsTicket(userId).then(
      ({ ticket, email }) => {
        handover = { type: LoginAsMessage.ticket, ticket, email };
        send();
      },
      (error: unknown) => {
        // The tab shows why too, if it is listening already.
        handover = { type: LoginAsMessage.failed, errors: errorMessages(error) };
        if (isReady) send();
        else {
          tab.close();
          finish(new Error(handover.errors.join(' ')));
        }
      },
    );
  });
}
