import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AnalyticsMessages, type TAnalytics } from '@persona/contract';
import { json } from '../../../test/fetch-mock';
import { adminSession, renderApp, userSession } from '../../../test/render-app';
import { periodParams } from './analytics';

const none = { count: 0, p50: null, p95: null };
const figures = (over: Partial<TAnalytics> = {}): TAnalytics => ({
  from: '2026-05-03T00:00:00.000Z',
  to: '2026-06-02T00:00:00.000Z',
  utcOffset: 0,
  sessions: 42,
  minutes: 126.5,
  days: [
    { day: '2026-05-31', sessions: 20, minutes: 60 },
    { day: '2026-06-01', sessions: 22, minutes: 66.5 },
  ],
  turns: { mean: 4.2, p50: 4, p95: 9, max: 12 },
  durationSeconds: { p50: 150, p90: 400, p95: 480, max: 900 },
  outcomes: [
    { outcome: 'hang-up', count: 30 },
    { outcome: 'idle', count: 8 },
    { outcome: 'error', count: 4 },
  ],
  errorCodes: [{ code: 'worker-lost', count: 4 }],
  providerErrors: [{ provider: 'elevenlabs', phase: 'speech', count: 7, sessions: 3 }],
  voice: {
    endToEnd: { count: 160, p50: 820, p95: 1450 },
    endOfSpeech: { count: 160, p50: 300, p95: 520 },
    stt: { count: 160, p50: 120, p95: 240 },
    firstToken: { count: 160, p50: 350, p95: 700 },
    firstAudio: { count: 160, p50: 110, p95: 230 },
  },
  page: { firstFrame: { count: 30, p50: 950, p95: 2100 }, avOffset: { count: 30, p50: 18, p95: 40 }, droppedFrames: { count: 30, p50: 1, p95: 12 } },
  questions: {
    available: true,
    sampled: 120,
    groups: [
      { text: 'What are your opening hours?', count: 14, sessions: 11, variants: ['when do you open', 'Are you open on Sunday?'] },
      { text: 'How do I get a refund?', count: 1, sessions: 1, variants: [] },
    ],
  },
  ...over,
});
const avatars = () => json({ status: 'OK', agents: [{ id: 7, name: 'Reception' }, { id: 8, name: 'Sales' }] });

describe('/analytics', () => {
  it('shows the figures of the period, and asks again for one avatar and another period through the URL', async () => {
    const { requests } = renderApp({
      route: '/analytics',
      session: userSession,
      api: { 'GET /api/list_avatar': avatars, 'GET /api/get_analytics': () => json({ status: 'OK', analytics: figures() }) },
    });
    const sessions = await screen.findByRole('region', { name: 'Sessions' });
    expect(within(sessions).getByText('42')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Minutes' })).getByText('126.5')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Duration p50' })).getByText('2:30')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Voice to voice p50' })).getByText('820 ms')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Voice to voice p50' })).getByText('p95 1.45 s')).toBeInTheDocument();
    const outcomes = screen.getByRole('list', { name: 'Outcomes' });
    expect(within(outcomes).getByText('Hung up')).toBeInTheDocument();
    expect(within(outcomes).getByText('30 · 71%')).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Errors by code' })).getByText('worker-lost')).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Provider errors' })).getByText(/speech · 7 failures in 3 sessions/)).toBeInTheDocument();
    const questions = screen.getByRole('list', { name: 'Frequent questions' });
    expect(within(questions).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'What are your opening hours?Asked 14 times in 11 sessions · also “when do you open”, “Are you open on Sunday?”',
      'How do I get a refund?Asked once in 1 session',
    ]);
    expect(screen.getByText('From the latest 120 visitor turns of the period.')).toBeInTheDocument();
    const page = screen.getByRole('region', { name: "Measured by the visitors' pages" });
    expect(within(page).getByText('p50 950 ms · p95 2.10 s')).toBeInTheDocument();
    expect(within(page).getByText('p50 18 ms · p95 40 ms')).toBeInTheDocument();
    // The first call: the last 30 days in the browser's zone.
    const first = new URL(requests.find((r) => r.path.startsWith('/api/get_analytics'))!.path, 'http://x');
    expect(Date.parse(first.searchParams.get('to')!) - Date.parse(first.searchParams.get('from')!)).toBeGreaterThanOrEqual(30 * 86_400_000 - 3_600_000);
    expect(first.searchParams.get('utcOffset')).toBe(String(-new Date().getTimezoneOffset()));

    await userEvent.click(screen.getByRole('combobox', { name: 'Avatar' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Sales' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/analytics?avatarId=8'));
    await waitFor(() => expect(requests.some((r) => r.path.startsWith('/api/get_analytics') && r.path.includes('avatarId=8'))).toBe(true));
    await userEvent.click(screen.getByRole('combobox', { name: 'Period' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Last 7 days' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/analytics?avatarId=8&days=7'));
    // Back to this avatar's conversations (the top bar has its own Conversations link).
    expect(screen.getAllByRole('link', { name: 'Conversations' }).some((l) => l.getAttribute('href')?.endsWith('/conversations?avatarId=8'))).toBe(true);
  });

  it('asks the admin path for administrators, says when a period is empty, and when the call failed', async () => {
    const { requests } = renderApp({
      route: '/analytics',
      session: adminSession,
      api: { 'GET /api/admin/get_analytics': () => json({ status: 'OK', analytics: figures({ sessions: 0, minutes: 0, days: [], outcomes: [], errorCodes: [], providerErrors: [], questions: { available: false, sampled: 0, groups: [] }, voice: { endToEnd: none, endOfSpeech: none, stt: none, firstToken: none, firstAudio: none } }) }) },
    });
    expect(await screen.findByText(AnalyticsMessages.empty)).toBeInTheDocument();
    expect(screen.getByText('No spoken turns in this period.')).toBeInTheDocument();
    expect(screen.getByText('No provider failed in this period.')).toBeInTheDocument();
    expect(screen.getByText('Questions are grouped by meaning with the knowledge base’s embedding model, which is off on this server.')).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Avatar' })).not.toBeInTheDocument();
    expect(requests.some((r) => r.path.startsWith('/api/get_analytics'))).toBe(false);

    renderApp({ route: '/analytics', session: userSession, api: { 'GET /api/list_avatar': avatars, 'GET /api/get_analytics': () => json({ status: 'FAIL', errors: ['A date range may span at most 366 days.'] }, 400) } });
    expect(await screen.findByText(AnalyticsMessages.loadFailed)).toBeInTheDocument();
  });

  it('counts a period of days back from today in the browser’s zone', () => {
    const now = new Date(2026, 5, 10, 15, 30);
    const p = periodParams(7, now, '7');
    expect(new Date(p.from!).getDate()).toBe(4);
    expect(new Date(p.to!).getDate()).toBe(11);
    expect(p.avatarId).toBe('7');
  });
});
