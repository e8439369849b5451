import { expect, test } from '@playwright/test';
import type { TConversationDetail } from '@persona/contract';
import { expectAccessible } from './support/axe';
import { createEchoAvatar } from './support/embed';
import { signIn } from './support/pages';
import { WIDTHS, shot, useWidth } from './support/screenshots';

// The transcript's detail under each turn (ADR 102), as the portal shows it: provider errors and how
// much of an interrupted answer was heard at once; the recogniser's corrections, the functions with
// their arguments and results, and the knowledge passages folded. The stored detail comes from the
// worker (worker and server tests); here the page is given one conversation that has every kind.
const ID = '6f1c2f9e-1a2b-4c3d-8e4f-0000000000d1';

test('a transcript shows each turn’s corrections, functions, passages and errors, compactly', async ({ page }) => {
  const { id, account } = await createEchoAvatar('details', { name: 'Harbour Help' });
  const conversation: TConversationDetail = {
    id: ID,
    avatarId: id,
    avatarName: 'Harbour Help',
    ownerUserId: 1,
    startedAt: '2026-06-01T12:00:00.000Z',
    endedAt: '2026-06-01T12:02:10.000Z',
    durationSeconds: 130,
    channel: 'avatar-page',
    hostOrigin: null,
    locale: 'en-GB',
    visitor: 'v-0123456789',
    turns: 2,
    outcome: 'hang-up',
    endCode: 'hang-up',
    voiceP50Ms: 820,
    canDelete: true,
    textRemoved: false,
    summary: null,
    pageFigures: null,
    turnList: [
      { role: 'avatar', text: 'Hello! How can I help?', at: '2026-06-01T12:00:01.000Z', interrupted: false, latency: null },
      {
        role: 'visitor',
        text: 'Where is my order 4417?',
        at: '2026-06-01T12:00:10.000Z',
        interrupted: false,
        latency: { endOfUtteranceMs: 380, sttMs: 160, llmFirstTokenMs: 420, ttsFirstByteMs: 140, endToEndMs: 980 },
        detail: { interims: ['Wear is my order for', 'Where is my order for tea'] },
      },
      {
        role: 'avatar',
        text: 'Your parcel left our warehouse yesterday and should',
        at: '2026-06-01T12:00:12.000Z',
        interrupted: true,
        latency: null,
        detail: {
          heardMs: 2_350,
          fullChars: 118,
          calls: [
            { name: 'lookup_order', arguments: '{"order_id": "4417", "email": "[email]"}', ok: true, result: '{"status": "shipped", "carrier": "DHL", "tracking": "JD0146000038", "eta": "2026-06-03"}' },
            { name: 'get_weather', arguments: '{}', ok: false, result: "KeyError: 'city'" },
          ],
          passages: [
            { title: 'shipping-policy.pdf', snippet: 'Orders placed before 2 pm ship the same working day. Delivery within the EU takes two to four working days…' },
            { title: 'https://harbour.example/faq', snippet: 'You can track your parcel with the tracking number in your confirmation e-mail.' },
          ],
        },
      },
      { role: 'visitor', text: 'And the weather?', at: '2026-06-01T12:00:20.000Z', interrupted: false, latency: null },
      {
        role: 'avatar',
        text: 'Sorry, something went wrong on my side. Please try again.',
        at: '2026-06-01T12:00:23.000Z',
        interrupted: false,
        latency: null,
        detail: { errors: [{ provider: 'openai-compatible', code: 'http-429', phase: 'reply' }] },
      },
    ],
  };
  await page.route('**/api/get_conversation?*', (route) => route.fulfill({ json: { status: 'OK', conversation } }));
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  await page.goto(`/react/conversations/${ID}`);
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await expect(transcript).toContainText('Where is my order 4417?');
  await expect(transcript.getByText('Interrupted after 2.35 s: the visitor heard only this much (51 of 118 characters).')).toBeVisible();
  await expect(transcript.getByText('openai-compatible · http-429 (reply)')).toBeVisible();
  await expect(transcript.getByText('{"order_id": "4417", "email": "[email]"}')).toHaveCount(0);
  // Folded first (the list stays a chat), unfolded on demand.
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'conversation-details-folded');
  }
  await transcript.getByRole('button', { name: '2 functions · 2 passages' }).click();
  await transcript.getByRole('button', { name: '2 corrections' }).click();
  await expect(transcript.getByRole('region', { name: 'Functions' })).toContainText('lookup_order');
  await expect(transcript.getByRole('region', { name: 'Knowledge used' })).toContainText('shipping-policy.pdf');
  await expect(transcript.getByRole('region', { name: 'Heard first as' })).toContainText('Wear is my order for');
  for (const width of WIDTHS) {
    await useWidth(page, width);
    await shot(page, 'conversation-details');
    await expectAccessible(page, `conversation-details-${width}`);
  }
});
