import { describe, expect, it, vi } from 'vitest';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TAvatar } from '@persona/contract';
import { renderApp, userSession } from '../../../test/render-app';
import type * as EditorModel from '../lib/editor-model';
import { SUCCESS_TOAST_MS } from '../lib/editor-model';
import { agent, creatorApi } from './fixtures';

// The progress toast would close itself after its display time; here that time is a minute, so a
// progress toast that is gone was replaced by its outcome, however slowly a busy machine renders.
vi.mock('../lib/editor-model', async (importOriginal) => ({ ...(await importOriginal<typeof EditorModel>()), SUCCESS_TOAST_MS: 60_000 }));

// The editor's tabs are loaded on demand: give them time on a busy machine.
configure({ asyncUtilTimeout: 15_000 });
vi.setConfig({ testTimeout: 60_000 });

/**
 * Media uploads go through XMLHttpRequest (for their progress): a stand-in that holds each
 * request until the test answers it, so the progress toast can be seen before its outcome.
 */
class HeldXhr {
  static pending: HeldXhr[] = [];
  status = 0;
  statusText = '';
  responseText = '';
  timeout = 0;
  upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  open() {}
  setRequestHeader() {}
  send() {
    HeldXhr.pending.push(this);
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}

const uploaded = { id: 9, url: '/files/media/beach.png', name: 'beach.png', type: 'image/png' };

async function openEnvironment(user: ReturnType<typeof userEvent.setup>, avatar: TAvatar) {
  renderApp({ route: '/avatars', session: userSession, api: creatorApi([avatar]) });
  const card = await screen.findByTestId('avatar-card-101');
  await user.click(within(card).getByRole('button', { name: 'Expand Maya Helper' }));
  await user.click(within(card).getByRole('button', { name: 'Edit' }));
  const panel = await screen.findByRole('region', { name: 'Edit avatar' });
  await user.click(within(panel).getByRole('tab', { name: 'Environment' }));
  return panel;
}

/** The toast with exactly this text (the page's own progress line reads 'Uploading... 40%'). */
const toast = (text: string) => screen.queryByText(text, { selector: '#notistack-snackbar' });

/**
 * Answers the held request and checks the progress toast gives way to the outcome: gone before
 * its own display time (a minute here) could have closed it, so it was replaced, not left to time out.
 */
async function expectReplaced(progress: string, request: () => HeldXhr | undefined, status: number, body: unknown, outcome: string) {
  await waitFor(() => expect(request()).toBeDefined());
  await waitFor(() => expect(toast(progress)).toBeInTheDocument(), { interval: 10 });
  const shownAt = Date.now();
  request()!.answer(status, body);
  await waitFor(() => expect(toast(outcome)).toBeInTheDocument(), { interval: 10 });
  await waitFor(() => expect(toast(progress)).not.toBeInTheDocument(), { interval: 10 });
  expect(Date.now() - shownAt).toBeLessThan(SUCCESS_TOAST_MS);
}

describe('avatar media toasts', () => {
  it("'Uploading...' gives way to 'File uploaded successfully', and 'Removing...' to 'File removed successfully'", async () => {
    HeldXhr.pending = [];
    vi.stubGlobal('XMLHttpRequest', HeldXhr);
    const user = userEvent.setup();
    const panel = await openEnvironment(user, agent());

    await user.upload(await within(panel).findByLabelText('Upload background image'), new File([new Uint8Array(64)], 'beach.png', { type: 'image/png' }));
    const saved = agent({ version: 4, mediaDetails: { backgroundImage: [uploaded], scene: [] } });
    await expectReplaced('Uploading...', () => HeldXhr.pending[0], 200, { status: 'OK', agent: saved }, 'File uploaded successfully');

    await user.click(await within(panel).findByRole('button', { name: 'Delete beach.png' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete Environment' })).getByRole('button', { name: 'Delete' }));
    await expectReplaced('Removing...', () => HeldXhr.pending[1], 200, { status: 'OK', agent: agent({ version: 5 }) }, 'File removed successfully');
  });

  it('a failed upload replaces its progress toast with the error', async () => {
    HeldXhr.pending = [];
    vi.stubGlobal('XMLHttpRequest', HeldXhr);
    const user = userEvent.setup();
    const panel = await openEnvironment(user, agent());
    await user.upload(await within(panel).findByLabelText('Upload background image'), new File([new Uint8Array(64)], 'beach.png', { type: 'image/png' }));
    await expectReplaced('Uploading...', () => HeldXhr.pending[0], 400, { status: 'FAIL', errors: ['The file is not a PNG or JPEG image.'] }, 'The file is not a PNG or JPEG image.');
  });
});
