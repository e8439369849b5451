import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { renderApp } from '../../../test/render-app';
import { embedSnippet } from '../../avatars/lib/preview';

describe('/docs', () => {
  it('links the OAuth configs page (in no menu) and its help from a section of its own', async () => {
    renderApp({ route: '/docs' });
    const section = await screen.findByRole('region', { name: 'Visitor sign-in (OAuth)' });
    expect(within(section).getByRole('link', { name: 'OAuth configs' })).toHaveAttribute('href', '/oauthconfigs');
    expect(within(section).getByRole('link', { name: 'OAuth help' })).toHaveAttribute('href', '/oauthhelp');
    expect(screen.getByRole('link', { name: 'Visitor sign-in (OAuth)' })).toHaveAttribute('href', '#oauth');
  });
});

describe('iframe snippets', () => {
  it('every snippet on /docs grants the avatar page what the Embed tab’s snippet grants (issue 26: they differed)', async () => {
    renderApp({ route: '/docs' });
    await screen.findByRole('region', { name: 'Visitor sign-in (OAuth)' });
    const allowOf = (text: string) => [...text.matchAll(/allow="([^"]*)"/g)].map((m) => m[1]);
    const embedTab = allowOf(embedSnippet('https://portal.example/avatar/1'));
    expect(embedTab).toHaveLength(1);
    const docs = [screen.getByLabelText('Embed snippet'), screen.getByLabelText('Host page driving the avatar')].flatMap((el) => allowOf(el.textContent ?? ''));
    expect(docs).toHaveLength(2);
    for (const allow of docs) expect(allow).toBe(embedTab[0]);
    // What the page uses: the microphone, sound without a click, its fullscreen button.
    expect(embedTab[0]!.split(/;\s*/)).toEqual(['microphone', 'autoplay', 'fullscreen']);
  });

  it('default to the size the avatar page is laid out for (480 × 640, ADR 090), in the Embed tab and on /docs', async () => {
    renderApp({ route: '/docs' });
    await screen.findByRole('region', { name: 'Visitor sign-in (OAuth)' });
    const sizeOf = (text: string) => [...text.matchAll(/width="(\d+)"\s+height="(\d+)"/g)].map((m) => `${m[1]}x${m[2]}`);
    expect(sizeOf(embedSnippet('https://portal.example/avatar/1'))).toEqual(['480x640']);
    const docs = [screen.getByLabelText('Embed snippet'), screen.getByLabelText('Host page driving the avatar')].flatMap((el) => sizeOf(el.textContent ?? ''));
    expect(docs).toEqual(['480x640', '480x640']);
  });
});

describe('/docs/agent-api', () => {
  it('serves the agent API reference (docs/agent-api.md) with this portal’s addresses, and the example agent', async () => {
    renderApp({ route: '/docs/agent-api' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Bring your own agent: the agent API' })).toBeInTheDocument();
    // The document's sections, tables and anchors (the Brain tab and the guide link here).
    expect(screen.getByRole('heading', { name: '3. Keep the dispatch socket open' })).toHaveAttribute('id', '3-keep-the-dispatch-socket-open');
    expect(screen.getByRole('heading', { name: 'Interruptions' })).toHaveAttribute('id', 'interruptions');
    const claims = screen.getByRole('region', { name: 'Table: claim, value' });
    expect(within(claims).getByRole('row', { name: /aud "persona-agent"/ })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Interruptions' })).toHaveAttribute('href', '#interruptions');
    // Inline markup, never raw Markdown.
    expect(screen.getAllByText('None (3rd Party AI)')[0]!.tagName).toBe('STRONG');
    expect(screen.queryByText(/\*\*None|```json/)).not.toBeInTheDocument();
    // Placeholders become this portal's address.
    const origin = window.location.origin;
    expect(screen.getByLabelText('Example 2')).toHaveTextContent(`GET ${origin.replace(/^http/, 'ws')}/api/agent/ws Authorization: Bearer <agent token>`);
    expect(screen.getByLabelText('Running the example agent')).toHaveTextContent(`PORTAL_URL=${origin} AVATAR_ID=42 KEY_FILE=avatar-key.pem node echo-agent.mjs`);
    // The example: linked from the text, shown whole, downloadable.
    expect(screen.getByRole('link', { name: 'examples/echo-agent.mjs' })).toHaveAttribute('href', '#example-agent');
    expect(screen.getByRole('heading', { name: 'The example agent' })).toHaveAttribute('id', 'example-agent');
    expect(screen.getByLabelText('echo-agent.mjs')).toHaveTextContent('export function startEchoAgent');
    expect(screen.getByRole('link', { name: /Download echo-agent.mjs/ })).toHaveAttribute('download', 'echo-agent.mjs');
    // The repository's design notes are not served: neither linked nor mentioned.
    expect(screen.queryByRole('link', { name: /072-bring-your-own-agent/ })).not.toBeInTheDocument();
    expect(screen.queryByText(/Design notes/)).not.toBeInTheDocument();
  });

  it('is linked from the guide’s “Bring your own agent” section', async () => {
    renderApp({ route: '/docs' });
    const section = await screen.findByRole('region', { name: 'Bring your own agent' });
    expect(within(section).getByRole('link', { name: 'agent API reference' })).toHaveAttribute('href', '/docs/agent-api');
  });
});
