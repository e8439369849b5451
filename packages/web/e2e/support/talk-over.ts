import { expect, type Page } from '@playwright/test';
import { startFakeOpenAi, type FakeOpenAi } from '../../../worker/src/test/fake-openai';
import { apiLogin, baseUrl, createVerifiedAccount } from './accounts';

/** The last sentence of the long answer the listening specs talk over. */
export const HARBOUR_LAST = 'And that is the whole story of the harbour.';
/** A long answer (~55 s of the offline voice) for the listening specs to talk over. */
export const HARBOUR_ANSWER = [
  'The harbour was dug by hand in the spring of eighteen twelve, when the first fishing boats came up the river.',
  'Its granite walls were raised over the next forty years, stone by stone, by the families who lived along the quay.',
  'The lighthouse followed in eighteen fifty four, and its lamp has guided the ferries every night since then.',
  'In the summer the market fills the square with fish, bread and flowers, and the boats leave at dawn.',
  'In winter the storms close the harbour for days, and the town waits for the sea to calm down again.',
  'The old customs house by the bridge is a museum now, with maps, ropes and ship models from every century.',
  'On the first Sunday of August the whole town sails out to the island for the regatta and comes back at dusk.',
  'Children learn to row in the inner basin, where the water is calm even when the wind blows from the west.',
  HARBOUR_LAST,
].join(' ');

/**
 * Listening on the real worker (issue 14): an LLM avatar whose model (a fake of this spec's own)
 * answers the nth turn with `answer(n)`, said by the offline voice; the visitor is Chromium's fake
 * microphone, heard by the worker's Silero VAD and offline recogniser (pocketsphinx).
 */
export async function longAnswerAvatar(
  prefix: string,
  answer: (turn: number) => string,
  opts: { firstTokenDelayMs?: number; pipeline?: Record<string, unknown> } = {},
): Promise<{ id: number; llm: FakeOpenAi }> {
  let turn = 0;
  const llm = await startFakeOpenAi({ apiKey: 'talk-over-key', answer: () => ({ text: answer(turn++), ...(opts.firstTokenDelayMs ? { firstTokenDelayMs: opts.firstTokenDelayMs } : {}) }) });
  const account = await createVerifiedAccount(prefix);
  const session = await apiLogin(account.email, account.password);
  const { appKey } = (await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string };
  const avatar = {
    name: 'Harbour Guide',
    nlpEngine: 10,
    dhType: 2,
    setupMode: 1,
    wakeUpMessage: 'Hi.',
    dailyLimitPerSession: -1,
    dailyLimitPerIP: -1,
    dailyLimits: { Demo: -1 },
    idleTimeout: 300,
    customData: { agent_pipeline_config: { llm: { base_url: llm.url, api_key: 'talk-over-key', model: 'gpt-fake', instructions: 'You are the harbour guide.', summary_enabled: false }, ...opts.pipeline } },
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
  };
  // A new avatar starts in echo-back (spec): the brain is set by saving it again, as the editor does.
  const save = async (json: Record<string, unknown>) => {
    const form = new FormData();
    form.set('json', JSON.stringify(json));
    const response = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${appKey}:${session}` }, body: form });
    const saved = (await response.json()) as { agent?: { id: number; version: number; nlpEngine: number } };
    expect(response.status, JSON.stringify(saved)).toBe(200);
    return saved.agent!;
  };
  const created = await save(avatar);
  expect((await save({ ...avatar, id: created.id, version: created.version })).nlpEngine).toBe(10);
  return { id: created.id, llm };
}

export interface SeenFrame {
  type: string;
  utt?: number;
  at: number;
  final?: boolean;
  interrupted?: boolean;
  text?: string;
  delta?: string;
}

/** The worker's JSON frames as the page receives them (Playwright sees the page's WebSocket). */
export function recordWorkerFrames(page: Page): SeenFrame[] {
  const frames: SeenFrame[] = [];
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/avatar-ws')) return;
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') return;
      try {
        frames.push({ ...(JSON.parse(payload) as Omit<SeenFrame, 'at'>), at: Date.now() });
      } catch {
        // not JSON: ignored
      }
    });
  });
  return frames;
}
