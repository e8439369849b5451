import { expect, test, type Page } from '@playwright/test';
import { adminAccount, apiLogin, baseUrl, callApi, createVerifiedAccount } from './support/accounts';
import { clickForNewTab, signIn } from './support/pages';
import { WIDTHS } from './support/screenshots';

/**
 * The live avatar with a real brain, end to end on the built server and its embedded worker: an
 * LLM avatar (an OpenAI-compatible model served on 127.0.0.1 by global-setup) answers from the
 * owner's knowledge collection and calls the owner's approved python function (run in the
 * worker's Pyodide sandbox); the administrator sees the session in Online Users while it lasts and
 * the owner's billing report counts the call once it has ended.
 */
const llmUrl = () => process.env.E2E_LLM_URL!;
const llmKey = () => process.env.E2E_LLM_KEY!;

async function appKey(): Promise<string> {
  return ((await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string }).appKey;
}

/** The knowledge API's calls take the portal-minted JWT (as the Knowledge Base page does). */
async function knowledgeCall(jwt: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl()}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(json)).toBe(200);
  return json;
}

async function openBillingReport(page: Page) {
  await page.goto('/react/account');
  const billing = page.getByRole('region', { name: 'Billing Report' });
  await expect(billing).toBeVisible();
  return billing;
}

test('an LLM avatar answers from its knowledge collection and calls its approved function; Online Users and billing show the session', async ({ page, context, browser }) => {
  test.setTimeout(300_000);
  const account = await createVerifiedAccount('llm');
  const session = await apiLogin(account.email, account.password);
  const key = await appKey();

  // The owner's knowledge: one collection with one text item, indexed.
  const jwt = (await (await fetch(`${baseUrl()}/api/token/jwt`, { headers: { authorization: `Bearer ${key}:${session}` } })).json()) as { jwtToken: string };
  const collection = (await knowledgeCall(jwt.jwtToken, '/knowledge_collection', { name: 'Harbour' })).data as { id: number };
  await knowledgeCall(jwt.jwtToken, '/knowledge', {
    collection_id: collection.id,
    name: 'Harbour notes',
    knowledge_type: 'text',
    content: 'The granite lighthouse was built in 1854. It still guides the ferries at night.',
  });
  await expect
    .poll(async () => ((await knowledgeCall(jwt.jwtToken, `/knowledge?collection_id=${collection.id}`)).data as { status: string }[])[0]?.status, { timeout: 30_000 })
    .toBe('ready');

  // The owner's python function, approved by a moderator.
  const newFunction = await callApi(
    '/api/functions',
    { functions: [{ action: 'new', name: 'add_numbers', code: 'def add_numbers(a: int, b: int) -> int:\n    """Adds two whole numbers."""\n    return a + b\n' }] },
    session,
  );
  expect(newFunction.status, JSON.stringify(newFunction.json)).toBe(200);
  const fn = (newFunction.json.results as { function: { id: number; version: number } }[])[0]!.function;
  const admin = adminAccount();
  const adminSession = await apiLogin(admin.email, admin.password);
  const decided = await callApi('/api/admin/functions/review', { id: fn.id, version: fn.version, decision: 'approve' }, adminSession);
  expect(decided.status, JSON.stringify(decided.json)).toBe(200);

  // The avatar: Composite mode, the LLM engine on the fake provider, both linked.
  const avatar = {
    name: 'Harbour Guide',
    nlpEngine: 10,
    dhType: 2,
    setupMode: 1,
    wakeUpMessage: 'Ahoy! Ask me about the harbour.',
    dailyLimitPerSession: -1,
    dailyLimitPerIP: -1,
    dailyLimits: { Demo: -1 },
    idleTimeout: 300,
    functions: [fn.id],
    customData: {
      collection_ids: [collection.id],
      agent_pipeline_config: { llm: { base_url: llmUrl(), api_key: llmKey(), model: 'gpt-fake', instructions: 'You are the harbour guide.', summary_enabled: false } },
    },
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
  };
  // The creator's save (multipart, the avatar as its "json" field): a new avatar starts in
  // echo-back (spec), so the brain is set by saving it again, as the editor does.
  const save = async (json: Record<string, unknown>) => {
    const form = new FormData();
    form.set('json', JSON.stringify(json));
    const response = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${key}:${session}` }, body: form });
    const saved = (await response.json()) as { agent?: { id: number; version: number; nlpEngine: number } };
    expect(response.status, JSON.stringify(saved)).toBe(200);
    return saved.agent!;
  };
  const created = await save(avatar);
  const id = created.id;
  expect((await save({ ...avatar, id, version: created.version })).nlpEngine).toBe(10);

  // Before the conversation the billing report has nothing for this account.
  await page.goto('/react/login');
  await signIn(page, account.email, account.password);
  await expect(page).toHaveURL(/\/react\/avatars$/);
  const card = page.getByTestId(`avatar-card-${id}`);
  await expect(card.getByRole('link', { name: 'Connect' }).or(card.getByRole('button', { name: /^Expand / })).first()).toBeVisible();
  const connect = card.getByRole('link', { name: 'Connect' });
  if (!(await connect.isVisible())) await card.getByRole('button', { name: /^Expand / }).click();
  const avatarPage = await clickForNewTab(context, connect);
  await avatarPage.waitForLoadState();
  expect(new URL(avatarPage.url()).pathname).toBe(`/avatar/${id}`);

  // The conversation is a panel over the stage, closed at first (ADR 090): the visitor opens it.
  await avatarPage.getByRole('button', { name: 'Chat', exact: true }).click();
  const log = avatarPage.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Ahoy! Ask me about the harbour.', { timeout: 20_000 });
  const message = avatarPage.getByRole('textbox', { name: 'Message' });

  // Retrieval: the model is given the collection's passage and names its source.
  await message.fill('When was the lighthouse built?');
  await avatarPage.getByRole('button', { name: 'Send' }).click();
  await expect(log).toContainText('According to Harbour notes, The granite lighthouse was built in 1854.', { timeout: 30_000 });

  // A tool call: the model asks for add_numbers, the sandbox runs it, the model reports the result.
  // The worker's sandbox starts with the first session that has functions; until it is warm (tens
  // of seconds on a busy machine) a turn goes on without them after a bounded wait — so ask again.
  await expect(async () => {
    await message.fill('Please call add_numbers {"a": 2, "b": 3}');
    await avatarPage.getByRole('button', { name: 'Send' }).click();
    await expect(log).toContainText('The function returned 5.', { timeout: 20_000 });
  }).toPass({ timeout: 150_000, intervals: [1000] });

  for (const width of WIDTHS) {
    await avatarPage.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    await avatarPage.screenshot({ path: test.info().outputPath(`live-llm-${width}.png`), fullPage: true });
  }

  // The administrator's Online Users lists the live session.
  const users = await callApi('/api/list_avatar_users', { agentId: id, mode: 'get' }, session);
  const online = users.json.onlineUsers as { sessionId: string }[];
  expect(online).toHaveLength(1);
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await adminPage.goto('/react/login');
  await signIn(adminPage, admin.email, admin.password);
  await expect(adminPage).toHaveURL(/\/react\/onlineusers$/);
  await expect(adminPage.getByRole('table', { name: 'Online users' })).toContainText(online[0]!.sessionId, { timeout: 15_000 });
  await adminPage.screenshot({ path: test.info().outputPath('live-llm-online-users.png'), fullPage: true });

  // Hanging up ends the session: it leaves Online Users and is billed to the owner.
  await avatarPage.getByRole('button', { name: 'End conversation' }).click();
  await expect.poll(async () => ((await callApi('/api/list_avatar_users', { agentId: id, mode: 'get' }, session)).json.onlineUsers as unknown[]).length, { timeout: 15_000 }).toBe(0);
  await adminPage.reload();
  await expect(adminPage.getByRole('heading', { name: 'Online Users', level: 1 })).toBeVisible();
  await expect(adminPage.getByRole('main')).not.toContainText(online[0]!.sessionId);
  await adminContext.close();

  // The transcript keeps each answer's details (ADR 102): the passage it was given, the function with its arguments and result.
  type Turn = { role: string; detail?: { calls?: { name: string; arguments: string; ok: boolean; result: string | null }[]; passages?: { title: string; snippet: string }[] } };
  const conversationId = ((await callApi(`/api/list_conversation?avatarId=${id}`, undefined, session)).json.conversations as { id: string }[])[0]!.id;
  const turns = async () => ((await callApi(`/api/get_conversation?id=${conversationId}`, undefined, session)).json.conversation as { turnList: Turn[] }).turnList;
  await expect.poll(async () => (await turns()).some((t) => t.detail?.calls?.some((c) => c.name === 'add_numbers' && c.ok && c.result === '5')), { timeout: 15_000 }).toBe(true);
  const stored = await turns();
  const withPassage = stored.find((t) => t.detail?.passages?.some((x) => x.snippet.includes('The granite lighthouse was built in 1854')));
  expect(withPassage?.role).toBe('avatar');
  const call = stored.flatMap((t) => t.detail?.calls ?? []).find((c) => c.name === 'add_numbers' && c.ok)!;
  expect(JSON.parse(call.arguments)).toEqual({ a: 2, b: 3 });
  // Its summary by the avatar's model (ADR 099), written at its end and shown above the transcript.
  const summaryOf = async () => ((await callApi(`/api/get_conversation?id=${conversationId}`, undefined, session)).json.conversation as { summary: string | null }).summary;
  await expect.poll(summaryOf, { timeout: 20_000 }).not.toBeNull();
  await page.goto(`/react/conversations/${conversationId}`);
  await expect(page.getByRole('region', { name: 'Summary' })).toContainText((await summaryOf())!.slice(0, 40));
  const transcript = page.getByRole('list', { name: 'Transcript' });
  await transcript.getByRole('button', { name: /^1 function/ }).first().click();
  await expect(transcript.getByRole('region', { name: 'Functions' }).first()).toContainText('add_numbers');
  await page.screenshot({ path: test.info().outputPath('live-llm-transcript-details.png'), fullPage: true });

  const billing = await openBillingReport(page);
  const row = billing.getByRole('row').filter({ hasText: 'Harbour Guide' });
  await expect(row).toBeVisible({ timeout: 15_000 });
  // One call; its duration is real (a few seconds rounds to the report's minutes with decimals).
  await expect(row.getByRole('cell').last()).toHaveText('1');
  await page.screenshot({ path: test.info().outputPath('live-llm-billing.png'), fullPage: true });
});
