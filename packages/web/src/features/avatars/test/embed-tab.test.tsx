import { describe, expect, it, vi } from 'vitest';
import { EditorView } from '@codemirror/view';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderApp, userSession } from '../../../test/render-app';
import { agent, creatorApi } from './fixtures';

configure({ asyncUtilTimeout: 15_000 });
vi.setConfig({ testTimeout: 60_000 });

/** A JWT-shaped token whose exp is the given time (the signature is not read by the page). */
function tokenExpiringAt(date: Date): string {
  const b64 = (v: object) => btoa(JSON.stringify(v)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ avatarId: 101, exp: Math.floor(date.getTime() / 1000) })}.sig`;
}

async function openEmbed(user: ReturnType<typeof userEvent.setup>) {
  const card = await screen.findByTestId('avatar-card-101');
  await user.click(within(card).getByRole('button', { name: 'Expand Maya Helper' }));
  await user.click(within(card).getByRole('button', { name: 'Edit' }));
  const panel = await screen.findByRole('region', { name: 'Edit avatar' });
  await user.click(within(panel).getByRole('tab', { name: 'EMBED' }));
  return panel;
}

describe('Embed tab', () => {
  it('says when a snippet with a portal-minted token stops working, and how a site mints its own', async () => {
    const user = userEvent.setup();
    const expiry = new Date(Date.now() + 12 * 3600 * 1000);
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent({ token: tokenExpiringAt(expiry) })]) });
    const panel = await openEmbed(user);
    const notice = await within(panel).findByText(/snippet carries an access token/);
    expect(notice).toHaveTextContent(`It stops working on ${expiry.toLocaleString()}, or sooner when you sign out.`);
    expect(within(panel).getByRole('link', { name: 'Docs › Encryption keys' })).toHaveAttribute('href', '/react/docs#encryption');
    expect(within(panel).getByTestId('embed-snippet')).toHaveTextContent('token=');
  });

  it('says nothing about tokens for an open avatar, and documents Trulience parameter names', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    const panel = await openEmbed(user);
    const table = await within(panel).findByRole('table', { name: 'URL parameters' });
    expect(within(panel).queryByText(/snippet carries an access token/)).not.toBeInTheDocument();
    expect(table).toHaveTextContent('also accepted: hideFS');
    expect(table).toHaveTextContent('speakerOffByDefault');
    // Trulience's iframe app's names (issue 26, item 8).
    for (const name of ['registerTrlEvents', 'showFullscreenAvatar', 'hideSpeakerButton', 'disableMic']) expect(table).toHaveTextContent(name);
  });
});

describe('Embed tab JSON editors', () => {
  it('shows each sub-tab its own JSON, even when switched right after typing', async () => {
    const user = userEvent.setup();
    renderApp({ route: '/avatars', session: userSession, api: creatorApi([agent()]) });
    const panel = await openEmbed(user);
    await user.click(within(panel).getByRole('tab', { name: 'AVATAR/ENVIRONMENT JSON' }));
    await waitForEditor(panel);
    const avatarText = panel.querySelector('.cm-content')?.textContent ?? '';
    expect(avatarText).toContain('ParentConfig');
    await user.click(within(panel).getByRole('tab', { name: 'CLIENT JSON' }));
    // Typed into (not set from outside): CodeMirror holds back outside values for a moment after typing.
    const client = await waitForEditor(panel, (text) => !text.includes('ParentConfig'));
    const view = EditorView.findFromDOM(client)!;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: '{"locale": "de-DE"}' } });
    await user.click(within(panel).getByRole('tab', { name: 'AVATAR/ENVIRONMENT JSON' }));
    expect(panel.querySelector('.cm-content')?.textContent).toBe(avatarText);
  });
});

function waitForEditor(panel: HTMLElement, ready: (text: string) => boolean = () => true): Promise<HTMLElement> {
  return waitFor(() => {
    const el = panel.querySelector<HTMLElement>('.cm-editor');
    if (!el || !ready(el.querySelector('.cm-content')?.textContent ?? '')) throw new Error('editor not ready');
    return el;
  });
}
