import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvatarSecretFields, AvatarSecretMessages as M, FailReason, SubscriptionType, isMasked } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';

// Issue 26, item 4: a stored key does not follow a changed base URL or provider. Saving the masked
// (unchanged) key with a new URL or provider is refused with the message of that key; typing the key
// again, or keeping the URL, saves. One row per secret with a URL or provider beside it.
let t: TestContext;
let user: Awaited<ReturnType<typeof createSignedInUser>>;
beforeAll(async () => {
  t = await createTestApp();
  user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });
});
afterAll(async () => {
  await t.close();
});

type Obj = Record<string, unknown>;
const save = (payload: object) => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });
const pipeline = (p: Obj) => ({ customData: { agent_pipeline_config: p } });

interface Row {
  name: string;
  /** The avatar's settings with the secret typed in. */
  stored: Obj;
  /** The same settings, secret(s) as the save sends them (mask or new value), URL/provider moved. */
  moved: (keys: (path: string) => unknown) => Obj;
  /** Paths of the secrets this row moves (their masks are sent back). */
  secrets: string[];
  messages: string[];
}

const llm = (base_url: string, api_key: unknown) => ({ nlpEngine: 10, setupMode: 1, ...pipeline({ llm: { base_url, api_key, model: 'gpt-4o-mini', summary_enabled: true } }) });
const rest = (url: string, key: unknown) => ({ nlpEngine: 1, setupMode: 0, restEndPointURL: url, restApiKey: key, ...pipeline({ llm: { summary_enabled: true } }) });
const realtime = (url: string, api_key: unknown) => ({ nlpEngine: 9, setupMode: 2, ...pipeline({ speech_to_speech: { url, api_key, model: 'gpt-realtime', voice_id: 'alloy' } }) });
const stt = (s: Obj) => ({ nlpEngine: 0, setupMode: 1, ...pipeline({ stt: { languages: 'en-US', ...s } }) });
const tts = (s: Obj) => ({ nlpEngine: 0, setupMode: 1, ...pipeline({ tts: { speed: 0, ...s } }) });
const billing = (url: string, header: unknown) => ({ billingAuthURL: url, billingAuthHeader: header });

const P = 'customData.agent_pipeline_config';
const ROWS: Row[] = [
  { name: 'LLM key / base URL', stored: llm('https://api.openai.com/v1', 'sk-secret-0123456789'), moved: (k) => llm('https://llm.attacker.example/v1', k(`${P}.llm.api_key`)), secrets: [`${P}.llm.api_key`], messages: [M.llmKeyAgain] },
  { name: 'REST key / endpoint URL', stored: rest('https://rest.example/answer', 'rest-secret-0123456789'), moved: (k) => rest('https://rest.attacker.example/answer', k('restApiKey')), secrets: ['restApiKey'], messages: [M.restKeyAgain] },
  {
    name: 'realtime key / realtime URL',
    stored: realtime('wss://api.openai.com/v1/realtime', 'rt-secret-0123456789'),
    moved: (k) => realtime('wss://realtime.attacker.example/v1/realtime', k(`${P}.speech_to_speech.api_key`)),
    secrets: [`${P}.speech_to_speech.api_key`],
    messages: [M.realtimeKeyAgain],
  },
  {
    name: 'STT key / provider',
    stored: stt({ provider: 2, api_key: 'azure-stt-secret-0123', region: 'eastus' }),
    moved: (k) => stt({ provider: 3, api_key: k(`${P}.stt.api_key`), languages: 'multi' }),
    secrets: [`${P}.stt.api_key`],
    messages: [M.sttKeyAgain],
  },
  {
    name: 'STT key / endpoint URL',
    stored: stt({ provider: 3, api_key: 'dg-stt-secret-0123456', languages: 'multi', base_url: 'https://api.deepgram.com' }),
    moved: (k) => stt({ provider: 3, api_key: k(`${P}.stt.api_key`), languages: 'multi', base_url: 'https://stt.attacker.example' }),
    secrets: [`${P}.stt.api_key`],
    messages: [M.sttKeyAgain],
  },
  {
    name: 'TTS key / provider',
    stored: tts({ provider: 1, api_key: 'azure-tts-secret-0123', region: 'eastus', voice_id: 'en-US-JennyNeural' }),
    moved: (k) => tts({ provider: 2, api_key: k(`${P}.tts.api_key`), voice_id: 'rachel' }),
    secrets: [`${P}.tts.api_key`],
    messages: [M.ttsKeyAgain],
  },
  {
    name: 'TTS key and Polly secret / endpoint URL',
    stored: tts({ provider: 0, api_key: 'AKIA0123456789ABCD', secret_key: 'polly-secret-0123456789', region: 'us-east-1', voice_id: 'Joanna (neural)' }),
    moved: (k) => tts({ provider: 0, api_key: k(`${P}.tts.api_key`), secret_key: k(`${P}.tts.secret_key`), region: 'us-east-1', voice_id: 'Joanna (neural)', base_url: 'https://polly.attacker.example' }),
    secrets: [`${P}.tts.api_key`, `${P}.tts.secret_key`],
    messages: [M.ttsKeyAgain, M.ttsSecretAgain],
  },
  { name: 'billing header / billing URL', stored: billing('https://billing.example/check', 'Bearer billing-secret-0123'), moved: (k) => billing('https://billing.attacker.example/check', k('billingAuthHeader')), secrets: ['billingAuthHeader'], messages: [M.billingHeaderAgain] },
];

const at = (obj: unknown, path: string): unknown => path.split('.').reduce<unknown>((o, p) => (o && typeof o === 'object' ? (o as Obj)[p] : undefined), obj);

function expectRefused(res: Awaited<ReturnType<typeof save>>, errors: string[]) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams, errors });
}

describe('a stored secret does not follow its URL or provider', () => {
  it('every secret beside a URL or provider is declared with its rule', () => {
    const bound = AvatarSecretFields.filter((f) => f.boundTo.length > 0).map((f) => f.path);
    expect(new Set(ROWS.flatMap((r) => r.secrets))).toEqual(new Set(bound));
  });

  it.each(ROWS)('$name: the mask with a new URL or provider is refused; the key typed again saves', async (row) => {
    const created = (await save(validAvatar())).json().agent;
    const first = await save(validAvatar({ id: created.id, version: created.version, ...row.stored }));
    expect(first.statusCode, first.body).toBe(200);
    const agent = first.json().agent;
    for (const path of row.secrets) expect(isMasked(at(agent, path)), path).toBe(true);
    const base = { id: agent.id, version: agent.version };

    // The mask (what the editor sends back) keeps the stored key: refused. No value at all keeps it
    // too: refused as well (by this rule, or first by the provider's own 'key is required').
    expectRefused(await save(validAvatar({ ...base, ...row.moved((path) => at(agent, path)) })), row.messages);
    expect((await save(validAvatar({ ...base, ...row.moved(() => undefined) }))).statusCode).toBe(400);

    // The same URL and provider with the mask: kept (the next save of another tab is not refused).
    const same = await save(validAvatar({ ...base, ...maskedCopy(row.stored, row.secrets, agent) }));
    expect(same.statusCode, same.body).toBe(200);

    // The key typed again goes with the new URL or provider.
    const next = same.json().agent;
    const typed = await save(validAvatar({ id: next.id, version: next.version, ...row.moved((path) => `retyped-${path.length}-0123456789`) }));
    expect(typed.statusCode, typed.body).toBe(200);
  });

  it('a URL written differently but the same (trailing slash, upper-case host) keeps the key', async () => {
    const created = (await save(validAvatar())).json().agent;
    const first = (await save(validAvatar({ id: created.id, version: created.version, ...llm('https://api.openai.com/v1', 'sk-secret-0123456789') }))).json().agent;
    const res = await save(validAvatar({ id: first.id, version: first.version, ...llm('https://API.openai.com/v1/', at(first, `${P}.llm.api_key`)) }));
    expect(res.statusCode, res.body).toBe(200);
  });
});

/** The stored settings with each secret replaced by the mask the answer showed. */
function maskedCopy(stored: Obj, secrets: string[], agent: unknown): Obj {
  const copy = structuredClone(stored);
  for (const path of secrets) {
    const parts = path.split('.');
    let cur = copy as Obj;
    for (const part of parts.slice(0, -1)) cur = cur[part] as Obj;
    cur[parts.at(-1)!] = at(agent, path);
  }
  return copy;
}
