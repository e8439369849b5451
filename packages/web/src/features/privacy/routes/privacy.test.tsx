import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PrivacyMessages, type TAvatarPrivacy, type TConversationDetail } from '@persona/contract';
import { json, type RecordedRequest } from '../../../test/fetch-mock';
import { renderApp, userSession } from '../../../test/render-app';

// Generous: the first wait also loads the page lazily, on a machine that may be busy.
const FIRST_LOAD = { timeout: 20_000 };
vi.setConfig({ testTimeout: 60_000 });

const stored: TAvatarPrivacy = { avatarId: 7, redaction: { email: true, phone: false, card: false, iban: false, patterns: ['ORD-[0-9]{6}'] }, retention: { mode: 'forever', days: null } };

function api(over: Record<string, (r: RecordedRequest) => Response> = {}) {
  return {
    'GET /api/list_avatar': () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }, { id: 8, name: 'Sales' }] }),
    'GET /api/get_avatar_privacy': () => json({ status: 'OK', privacy: stored }),
    'POST /api/set_avatar_privacy': (r: RecordedRequest) => json({ status: 'OK', privacy: r.body }),
    ...over,
  };
}

describe('/privacy', () => {
  it('asks for an avatar, then shows and saves its redaction and retention', async () => {
    const { requests } = renderApp({ route: '/privacy', session: userSession, api: api() });
    expect(await screen.findByText(PrivacyMessages.chooseAvatar, undefined, FIRST_LOAD)).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('combobox', { name: 'Avatar' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Reception' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/privacy?avatarId=7'));

    const email = await screen.findByRole('checkbox', { name: /E-mail addresses/ });
    expect(email).toBeChecked();
    expect(screen.getByRole('checkbox', { name: /Card numbers/ })).not.toBeChecked();
    expect(screen.getByLabelText(PrivacyMessages.patterns)).toHaveValue('ORD-[0-9]{6}');
    expect(screen.getByRole('radio', { name: PrivacyMessages.retentionForever })).toBeChecked();

    await userEvent.click(screen.getByRole('checkbox', { name: /Card numbers/ }));
    await userEvent.click(screen.getByRole('checkbox', { name: /IBANs/ }));
    await userEvent.type(screen.getByLabelText(PrivacyMessages.patterns), '\nPatient [[A-Z][[a-z]+\n\n');
    await userEvent.click(screen.getByRole('radio', { name: PrivacyMessages.retentionDays }));
    const days = screen.getByLabelText(PrivacyMessages.days);
    await userEvent.clear(days);
    await userEvent.type(days, '90');
    await userEvent.click(screen.getByRole('button', { name: PrivacyMessages.save }));
    await waitFor(() =>
      expect(requests.find((r) => r.path === '/api/set_avatar_privacy')?.body).toEqual({
        avatarId: 7,
        redaction: { email: true, phone: false, card: true, iban: true, patterns: ['ORD-[0-9]{6}', 'Patient [A-Z][a-z]+'] },
        retention: { mode: 'days', days: 90 },
      }),
    );
    expect(await screen.findByText(PrivacyMessages.saved)).toBeInTheDocument();
  });

  it('says in the browser what the server would (days out of range), and shows the server’s refusal of a pattern', async () => {
    const refusal = PrivacyMessages.badPattern(1, PrivacyMessages.patternNotLinear);
    const { requests } = renderApp({
      route: '/privacy?avatarId=7',
      session: userSession,
      api: api({ 'POST /api/set_avatar_privacy': () => json({ status: 'FAIL', errors: [refusal], failReason: 1 }, 400) }),
    });
    await userEvent.click(await screen.findByRole('radio', { name: PrivacyMessages.retentionDays }, FIRST_LOAD));
    const days = screen.getByLabelText(PrivacyMessages.days);
    await userEvent.clear(days);
    await userEvent.type(days, '4000');
    await userEvent.click(screen.getByRole('button', { name: PrivacyMessages.save }));
    expect(await screen.findByText(PrivacyMessages.badDays)).toBeInTheDocument();
    expect(requests.some((r) => r.path === '/api/set_avatar_privacy')).toBe(false);

    await userEvent.click(screen.getByRole('radio', { name: PrivacyMessages.retentionCounts }));
    await userEvent.click(screen.getByRole('button', { name: PrivacyMessages.save }));
    expect(await screen.findByText(refusal)).toBeInTheDocument();
    expect(requests.find((r) => r.path === '/api/set_avatar_privacy')?.body).toMatchObject({ retention: { mode: 'counts', days: null } });
  });
});

const ID = '6f1c2f9e-1a2b-4c3d-8e4f-000000000001';
const detail: TConversationDetail = {
  id: ID,
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
  voiceP50Ms: null,
  canDelete: true,
  textRemoved: false,
  summary: null,
  pageFigures: null,
  turnList: [{ role: 'visitor', text: 'Hello, I am [email]', at: '2026-06-01T12:00:10.000Z', interrupted: false, latency: null }],
};

describe('a transcript’s privacy', () => {
  it('erases its visitor after a confirmation that names them', async () => {
    const { requests } = renderApp({
      route: `/conversations/${ID}`,
      session: userSession,
      api: {
        'GET /api/get_conversation': () => json({ status: 'OK', conversation: detail }),
        'POST /api/erase_visitor': () => json({ status: 'OK', visitor: 'v-0123456789', sessions: 3, memories: 1, open: 0 }),
        'GET /api/list_conversation': () => json({ status: 'OK', conversations: [], nextCursor: null }),
        'GET /api/list_avatar': () => json({ status: 'OK', agents: [] }),
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: PrivacyMessages.eraseVisitor }, FIRST_LOAD));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(PrivacyMessages.eraseVisitorConfirm('v-0123456789'))).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Erase' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/conversations'));
    expect(requests.find((r) => r.path === '/api/erase_visitor')?.body).toEqual({ visitor: 'v-0123456789' });
    expect(await screen.findByText(PrivacyMessages.erased(3, 1))).toBeInTheDocument();
  });

  it('says why a conversation has no transcript when the retention removed its text', async () => {
    renderApp({ route: `/conversations/${ID}`, session: userSession, api: { 'GET /api/get_conversation': () => json({ status: 'OK', conversation: { ...detail, turnList: [], textRemoved: true } }) } });
    expect(await screen.findByText(PrivacyMessages.textRemoved, undefined, FIRST_LOAD)).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Transcript' })).not.toBeInTheDocument();
  });
  it('applies the saved redaction to stored conversations, page after page, after asking; not while the form differs from what is saved', async () => {
    const pages = [
      { status: 'OK', phase: 'conversations', looked: 200, changed: 31, nextCursor: 's:1796000000000:abc' },
      { status: 'OK', phase: 'conversations', looked: 7, changed: 2, nextCursor: 'm:' },
      { status: 'OK', phase: 'memories', looked: 4, changed: 1, nextCursor: null },
    ];
    const { requests } = renderApp({ route: '/privacy?avatarId=7', session: userSession, api: api({ 'POST /api/redact_stored_conversations': () => json(pages.shift()) }) });
    const apply = await screen.findByRole('button', { name: PrivacyMessages.redactStored }, FIRST_LOAD);
    expect(screen.getByText(PrivacyMessages.redactStoredHelp)).toBeInTheDocument();

    // An unsaved change: stored conversations would be redacted with other settings than shown.
    const card = screen.getByRole('checkbox', { name: /Card numbers/ });
    await userEvent.click(card);
    expect(apply).toBeDisabled();
    expect(screen.getByText(PrivacyMessages.redactStoredSaveFirst)).toBeInTheDocument();
    await userEvent.click(card);
    expect(apply).toBeEnabled();

    await userEvent.click(apply);
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(PrivacyMessages.redactStoredConfirm)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Redact' }));
    expect(await screen.findByText(PrivacyMessages.redactStoredDone(207, 33))).toBeInTheDocument();
    expect(requests.filter((r) => r.path === '/api/redact_stored_conversations').map((r) => r.body)).toEqual([
      { avatarId: 7 },
      { avatarId: 7, after: 's:1796000000000:abc' },
      { avatarId: 7, after: 'm:' },
    ]);
  });

  it('offers nothing to apply while redaction is off', async () => {
    renderApp({ route: '/privacy?avatarId=7', session: userSession, api: api({ 'GET /api/get_avatar_privacy': () => json({ status: 'OK', privacy: { ...stored, redaction: { email: false, phone: false, card: false, iban: false, patterns: [] } } }) }) });
    expect(await screen.findByRole('button', { name: PrivacyMessages.redactStored }, FIRST_LOAD)).toBeDisabled();
    expect(screen.getByText(PrivacyMessages.redactStoredOff)).toBeInTheDocument();
  });
});
