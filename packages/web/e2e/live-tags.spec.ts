import { expect, test } from '@playwright/test';
import { apiLogin, baseUrl, createVerifiedAccount } from './support/accounts';
import { FACE_ARGS, waitForFrames } from './support/avatar-face';

/**
 * The brain's Trulience tags, end to end on the built server and its embedded worker (ADR 088): an
 * LLM avatar whose model (the OpenAI-compatible fake global-setup serves, which echoes) answers
 * with `<trl-…>` tags. The face shows the mood and plays the gesture; no tag reaches the chat or the
 * captions (drawn from the voice's own word timings, so what the voice was given). The history the
 * model is given back is covered by the worker's tests (speech/avatar-tags, answer-actions).
 */
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: FACE_ARGS }, trace: 'off', viewport: { width: 1280, height: 800 } });

test('a tagged answer: the face turns happy and nods; the tags reach neither the chat nor the captions; a break is a pause in the voice the page is sent', async ({ page }) => {
  test.setTimeout(120_000);
  const account = await createVerifiedAccount('tags');
  const session = await apiLogin(account.email, account.password);
  const key = ((await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string }).appKey;
  const avatar = {
    name: 'Tag Guide',
    nlpEngine: 10,
    dhType: 2,
    setupMode: 1,
    wakeUpMessage: 'Hello there.',
    dailyLimitPerSession: -1,
    dailyLimitPerIP: -1,
    dailyLimits: { Demo: -1 },
    idleTimeout: 300,
    customData: { agent_pipeline_config: { llm: { base_url: process.env.E2E_LLM_URL!, api_key: process.env.E2E_LLM_KEY!, model: 'gpt-fake', instructions: 'You are a guide.', summary_enabled: false } } },
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
  };
  const save = async (json: Record<string, unknown>) => {
    const form = new FormData();
    form.set('json', JSON.stringify(json));
    const response = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${key}:${session}` }, body: form });
    const saved = (await response.json()) as { agent?: { id: number; version: number } };
    expect(response.status, JSON.stringify(saved)).toBe(200);
    return saved.agent!;
  };
  const created = await save(avatar);
  await save({ ...avatar, id: created.id, version: created.version });

  // What the worker sends the page (for the pause below).
  type Frame = { type: string; utt?: number; phase?: string; audioSampleRate?: number; action?: { tag?: string } };
  const frames = { json: [] as Frame[], binary: [] as Buffer[] };
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/avatar-ws')) return;
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload === 'string') frames.json.push(JSON.parse(payload) as Frame);
      else frames.binary.push(payload);
    });
  });
  await page.goto(`/avatar/${created.id}?chatOpen=true`);
  await waitForFrames(page);
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Hello there.', { timeout: 30_000 });
  // Every text the captions show, as they show it.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { captions: string[] }).captions = seen;
    const caption = document.querySelector('.ps-subtitle')!;
    new MutationObserver(() => seen.push(caption.textContent ?? '')).observe(caption, { childList: true, characterData: true, subtree: true });
  });

  // The fake model echoes: its answer is "You said: " and the message, tags and all.
  await page.getByRole('textbox', { name: 'Message' }).fill("<trl-mood id='happy' intensity='0.9' duration='6' />Wonderful news, <trl-anim id='nod' />thank you very much.");
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(log).toContainText('You said: Wonderful news, thank you very much.', { timeout: 30_000 });
  // (The visitor's own line shows what they typed; the avatar's answer has no tag.)
  const answer = async () => (await log.innerText()).split('You said:').slice(1).join('You said:');
  expect(await answer()).not.toMatch(/trl-|<|>/);

  const probe = () => page.evaluate(() => (window as unknown as { __personaAvatar: { mood: string; moodWeight: number; actions: { action: { kind: string; mood?: string; gesture?: string } }[] } }).__personaAvatar);
  // The face: happy (eased in), and the nod played, each at its place in the voice.
  await expect.poll(async () => { const p = await probe(); return p.mood === 'happy' && p.moodWeight > 0.5; }, { timeout: 30_000 }).toBe(true);
  await expect.poll(async () => (await probe()).actions.some((a) => a.action.kind === 'gesture' && a.action.gesture === 'nod'), { timeout: 30_000 }).toBe(true);
  expect((await probe()).actions.some((a) => a.action.kind === 'mood' && a.action.mood === 'happy')).toBe(true);
  await page.screenshot({ path: test.info().outputPath('live-tags-happy.png') });

  // The captions showed the words the voice said, and never a tag.
  await expect.poll(async () => (await page.evaluate(() => (window as unknown as { captions: string[] }).captions)).join(' '), { timeout: 30_000 }).toContain('thank you');
  const captions = await page.evaluate(() => (window as unknown as { captions: string[] }).captions);
  for (const text of captions) expect(text).not.toMatch(/trl-|<|>/);

  // A pause (`<trl-break>`, ADR 088): the voice the page is sent stops for its length mid-answer
  // (digital silence in its audio frames, read off the socket: the face's frames are too far apart
  // on a loaded machine to time it by ear) and goes on after it.
  await page.getByRole('textbox', { name: 'Message' }).fill("One two three, <trl-break duration='2' />four five six.");
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(log).toContainText('You said: One two three, four five six.', { timeout: 30_000 });
  const pauseUtt = () => frames.json.find((f) => f.type === 'action' && f.action?.tag === 'trl-break')?.utt;
  await expect.poll(() => pauseUtt() !== undefined && frames.json.some((f) => f.type === 'utterance' && f.phase === 'end' && f.utt === pauseUtt()), { timeout: 30_000 }).toBe(true);
  const utt = pauseUtt()!;
  // Binary avatar frames: 8-byte header (kind 2, flags, utterance u16 LE, seq), then PCM16 LE.
  const pcm = frames.binary.filter((b) => b[0] === 2 && b.readUInt16LE(2) === utt).map((b) => b.subarray(8));
  const samples = new Int16Array(Buffer.concat(pcm).buffer.slice(0));
  const rate = frames.json.find((f) => f.type === 'ready')!.audioSampleRate!;
  let run = 0;
  let longest = { end: 0, samples: 0 };
  for (let i = 0; i < samples.length; i++) {
    run = samples[i] === 0 ? run + 1 : 0;
    if (run > longest.samples) longest = { end: i + 1, samples: run };
  }
  const loud = (from: number, to: number) => samples.subarray(from, to).some((x) => Math.abs(x) > 2000);
  const pauseMs = (longest.samples * 1000) / rate;
  test.info().annotations.push({ type: 'pause', description: `${Math.round(pauseMs)} ms of digital silence in the answer's ${Math.round((samples.length * 1000) / rate)} ms (asked: 2000 ms)` });
  expect(pauseMs).toBeGreaterThanOrEqual(1950);
  expect(pauseMs).toBeLessThan(2300);
  expect(loud(0, longest.end - longest.samples)).toBe(true);
  expect(loud(longest.end, samples.length)).toBe(true);
});
