import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountMessages, FailReason, SubscriptionType } from '@persona/contract';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, validAvatar } from '../../test/factories.js';
import { createBillingRepository } from './billing-repository.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp({ ADMIN_EMAIL: 'boss@example.com' });
});
afterAll(async () => {
  await t.close();
});

const DAY = 86_400_000;

describe('GET /api/account_info', () => {
  it('answers every field of accountDetails for the caller', async () => {
    const user = await createSignedInUser(t.app, t.database, { firstName: 'Mary', lastName: 'Shelley', subscriptionType: SubscriptionType.STARTER });
    const res = await t.app.inject({ url: '/api/account_info', headers: user.headers });
    expect(res.statusCode).toBe(200);
    const d = res.json().accountDetails;
    expect(d).toMatchObject({
      Id: user.id,
      Name: 'Mary Shelley',
      Email: user.email,
      Status: 'ACTIVE',
      requestedSubType: null,
      licenses: { webgl: { subscriptionType: SubscriptionType.STARTER } },
      maxAvatars: 3,
    });
    expect(new Date(d['Create Date']).getTime()).toBeGreaterThan(0);
    // What the avatar creator reads.
    expect(d.languages[0]).toEqual({ code: 'aa', name: 'Multilingual' });
    expect(d.languages.length).toBeGreaterThanOrEqual(105);
    // Same-origin resources are relative: the portal may be opened at another address than PUBLIC_URL.
    expect(d.defaultAvatarsList).toBe('/catalog/avatars.json');
    expect(d.customAvatarsJsonUrl).toBe('/api/custom_avatars');
    expect(d.lists.llmBaseUrls.map((u: { name: string }) => u.name)).toEqual(['OpenAI', 'Groq', 'Gemini', 'Cerebras', 'DeepSeek', 'Fireworks', 'Perplexity', 'Telnyx', 'Together', 'xAI']);
    for (const url of [d.defaultAvatarsList, d.defaultEnvsListUrl, d.defaultRealtimeSettingsUrl]) {
      expect(url).toMatch(/^\/catalog\//);
      expect((await t.app.inject({ url })).statusCode).toBe(200);
    }
    expect(new Date(d['Last Updated']).getTime()).toBeGreaterThan(0);
  });

  it('says how many avatars the account has, what every plan unlocks, and the configured contact address', async () => {
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });
    await createAvatar(t.database, user.id, 'Only one');
    const d = (await t.app.inject({ url: '/api/account_info', headers: user.headers })).json().accountDetails;
    expect(d).toMatchObject({ avatarCount: 1, maxAvatars: 1, contactEmail: 'boss@example.com' });
    expect(d.plans).toEqual([
      { code: SubscriptionType.FREE, name: 'FREE', priceUsdMonth: 0, maxAvatars: 1, imageAvatars: false },
      { code: SubscriptionType.STARTER, name: 'STARTER', priceUsdMonth: 199, maxAvatars: 3, imageAvatars: false },
      { code: SubscriptionType.PRO, name: 'PRO', priceUsdMonth: 399, maxAvatars: 10, imageAvatars: true },
      { code: SubscriptionType.ENTERPRISE, name: 'ENTERPRISE', priceUsdMonth: null, maxAvatars: null, imageAvatars: true },
    ]);
    // The count the creator shows is the one the create call enforces.
    const create = await t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload: validAvatar({ name: 'Second' }) });
    expect(create.json().failReason).toBe(FailReason.AvatarCreateLimitReached);
  });

  it('reads the plan limits and the contact address from the configuration', async () => {
    const other = await createTestApp({ PLAN_MAX_AVATARS: 'FREE=2,STARTER=5,PRO=20,ENTERPRISE=unlimited', CONTACT_EMAIL: 'Avatars@Studio.example' });
    try {
      const user = await createSignedInUser(other.app, other.database, { subscriptionType: SubscriptionType.FREE });
      const d = (await other.app.inject({ url: '/api/account_info', headers: user.headers })).json().accountDetails;
      expect(d.contactEmail).toBe('avatars@studio.example');
      expect(d.plans.map((p: { maxAvatars: number | null }) => p.maxAvatars)).toEqual([2, 5, 20, null]);
    } finally {
      await other.close();
    }
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ url: '/api/account_info', headers: { authorization: 'Bearer test-app-key' } })).statusCode).toBe(401);
  });
});

describe('GET /api/account_stats', () => {
  it('sums calls per avatar for the caller only, whole days and partial days alike', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const a1 = await createAvatar(t.database, me.id, 'Receptionist');
    const a2 = await createAvatar(t.database, me.id, 'Tutor');
    const theirs = await createAvatar(t.database, other.id, 'Not mine');
    const billing = createBillingRepository(t.database.db);
    const base = Date.UTC(2026, 5, 10, 12, 0, 0);
    const call = (avatar: { id: number; name: string }, userId: number, startMs: number, seconds: number) =>
      billing.recordCall({ userId, avatarId: avatar.id, avatarName: avatar.name, sessionId: `s-${startMs}-${seconds}`, startedAt: new Date(startMs), endedAt: new Date(startMs + seconds * 1000) });
    await call(a1, me.id, base, 90);
    await call(a1, me.id, base + DAY, 30);
    await call(a1, me.id, base + 3 * DAY, 600);
    await call(a2, me.id, base + 2 * DAY, 120);
    await call(theirs, other.id, base + DAY, 999);
    await call(a1, me.id, base + 40 * DAY, 60); // outside the range

    // From the middle of day 0 (just before the first call) to the middle of day 3 (just after the 600 s call starts).
    const res = await t.app.inject({ url: `/api/account_stats?startDate=${base - 1000}&endDate=${base + 3 * DAY + 1000}`, headers: me.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('OK');
    expect(body.billingData).toEqual([
      { avatarName: 'Receptionist', avatarId: a1.id, totalCallDuration: 12, totalCallCount: 3 },
      { avatarName: 'Tutor', avatarId: a2.id, totalCallDuration: 2, totalCallCount: 1 },
    ]);
    expect(body.cummulativeData).toEqual({ totalCallDuration: 14, totalCallCount: 4 });

    // Renaming the avatar shows the current name.
    const narrow = await t.app.inject({ url: `/api/account_stats?startDate=${base + 2 * DAY - 10}&endDate=${base + 2 * DAY + 10}`, headers: me.headers });
    expect(narrow.json().billingData).toEqual([{ avatarName: 'Tutor', avatarId: a2.id, totalCallDuration: 2, totalCallCount: 1 }]);
  });

  it('answers an empty report when nothing happened', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ url: `/api/account_stats?startDate=${Date.now() - 30 * DAY}&endDate=${Date.now()}`, headers: me.headers });
    expect(res.json()).toEqual({ status: 'OK', billingData: [], cummulativeData: { totalCallDuration: 0, totalCallCount: 0 } });
  });

  it.each([
    ['startDate=10&endDate=5', AccountMessages.startAfterEnd],
    ['startDate=abc&endDate=5', AccountMessages.badDate],
    ['endDate=5', AccountMessages.badDate],
    ['startDate=-4&endDate=5', AccountMessages.badDate],
    [`startDate=0&endDate=${20 * 366 * DAY}`, AccountMessages.rangeTooLong],
  ])('refuses %s with a clear 400', async (query, message) => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ url: `/api/account_stats?${query}`, headers: me.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
    expect(res.json().errors.join(' ')).toContain(message);
  });
});

describe('plan requests', () => {
  it('records one pending request, mails every admin, and the admin decision changes the plan and mails the user', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const admin2 = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });

    const res = await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload: { subType: SubscriptionType.PRO, dhType: 2 } });
    expect(res.statusCode).toBe(200);
    const request = res.json().request;
    expect(request).toMatchObject({ status: 'PENDING', currentSubType: 1, requestedSubType: 2, email: user.email });

    const info = await t.app.inject({ url: '/api/account_info', headers: user.headers });
    expect(info.json().accountDetails.requestedSubType).toBe(SubscriptionType.PRO);

    const twice = await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload: { subType: SubscriptionType.STARTER } });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().errors).toEqual([AccountMessages.requestPending]);

    await flush();
    for (const a of [admin, admin2]) {
      const mail = t.mail.sent.find((m) => m.to === a.email && m.subject.includes(user.email))!;
      expect(mail.subject).toContain('upgrade');
      expect(mail.text).toContain(`http://portal.test/react/requests?id=${request.id}`);
    }

    const listed = await t.app.inject({ url: '/api/admin/plan_requests?status=PENDING', headers: admin.headers });
    expect(listed.json().requests.map((r: { id: number }) => r.id)).toContain(request.id);

    const decided = await t.app.inject({ method: 'POST', url: '/api/admin/plan_requests/decide', headers: admin.headers, payload: { requestId: request.id, decision: 'confirm' } });
    expect(decided.statusCode).toBe(200);
    expect(decided.json().request).toMatchObject({ status: 'CONFIRMED', decidedBy: admin.email });

    const after = (await t.app.inject({ url: '/api/account_info', headers: user.headers })).json().accountDetails;
    expect(after.licenses.webgl.subscriptionType).toBe(SubscriptionType.PRO);
    expect(after.requestedSubType).toBeNull();
    expect(after.maxAvatars).toBe(10);
    await flush();
    expect(t.mail.sent.find((m) => m.to === user.email)!.subject).toContain('PRO');

    const again = await t.app.inject({ method: 'POST', url: '/api/admin/plan_requests/decide', headers: admin2.headers, payload: { requestId: request.id, decision: 'decline' } });
    expect(again.statusCode).toBe(409);
  });

  it('declines with a reason and keeps the plan', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.PRO });
    const { request } = (await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload: { subType: SubscriptionType.FREE } })).json();
    await t.app.inject({ method: 'POST', url: '/api/admin/plan_requests/decide', headers: admin.headers, payload: { requestId: request.id, decision: 'decline', reason: 'Contract runs until June' } });
    const info = (await t.app.inject({ url: '/api/account_info', headers: user.headers })).json().accountDetails;
    expect(info.licenses.webgl.subscriptionType).toBe(SubscriptionType.PRO);
    await flush();
    const mail = t.mail.sent.filter((m) => m.to === user.email).at(-1)!;
    expect(mail.text).toContain('Contract runs until June');
    expect(mail.subject).toContain('declined');
  });

  it('lets the customer withdraw a pending request, which the admin can then no longer decide', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });
    const other = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });
    const withdraw = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/account_upgrade_withdraw', headers });
    expect((await withdraw(user.headers)).statusCode).toBe(409);

    const { request } = (await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload: { subType: SubscriptionType.PRO } })).json();
    const theirs = (await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: other.headers, payload: { subType: SubscriptionType.PRO } })).json().request;
    const res = await withdraw(user.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json().request).toMatchObject({ id: request.id, status: 'WITHDRAWN' });
    expect((await withdraw(user.headers)).json().errors).toEqual([AccountMessages.noPendingRequest]);

    const info = (await t.app.inject({ url: '/api/account_info', headers: user.headers })).json().accountDetails;
    expect(info.requestedSubType).toBeNull();
    expect(info.licenses.webgl.subscriptionType).toBe(SubscriptionType.FREE);
    // Another customer's request is untouched.
    expect((await t.app.inject({ url: '/api/account_info', headers: other.headers })).json().accountDetails.requestedSubType).toBe(SubscriptionType.PRO);
    const decided = await t.app.inject({ method: 'POST', url: '/api/admin/plan_requests/decide', headers: admin.headers, payload: { requestId: request.id, decision: 'confirm' } });
    expect(decided.statusCode).toBe(409);
    expect((await t.app.inject({ url: '/api/admin/plan_requests/decide', method: 'POST', headers: admin.headers, payload: { requestId: theirs.id, decision: 'decline' } })).statusCode).toBe(200);
    // A new request can follow.
    expect((await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload: { subType: SubscriptionType.STARTER } })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/account_upgrade_withdraw', headers: { authorization: 'Bearer test-app-key' } })).statusCode).toBe(401);
  });

  it.each([
    [{ subType: 0 }, AccountMessages.notAPlan],
    [{ subType: 9 }, AccountMessages.notAPlan],
    [{ subType: 1 }, AccountMessages.samePlan],
  ])('refuses %j', async (payload, message) => {
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });
    const res = await t.app.inject({ method: 'POST', url: '/api/account_upgrade', headers: user.headers, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContain(message);
  });
});
