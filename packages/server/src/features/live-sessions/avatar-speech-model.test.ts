import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { eq } from 'drizzle-orm';
import { avatars } from '../../db/schema/index.js';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { PageClient, startEmbeddedWorker, until } from '../../test/live.js';
import { findPocketsphinx } from '../../../../worker/src/providers/stt/offline.js';
import { readTrieModel } from '../../../../worker/src/providers/stt/trie-model.js';

// Issue 29 / ADR 105: an avatar's own speech model is built from its knowledge base's titles and
// text, which the worker asks of the portal (`knowledge.vocabulary`) when the visitor first turns
// the mic on — built in a worker thread (here from the TypeScript sources, through tsx).
const install = findPocketsphinx();

let t: TestContext;
let worker: LiveWorkerHandle;
let dir: string;
const lines: { level: string; msg: string }[] = [];
const pages: PageClient[] = [];

beforeAll(async () => {
  if (!install) return;
  dir = await mkdtemp(path.join(tmpdir(), 'avatar-speech-models-'));
  t = await createTestApp({ EMBEDDINGS: 'off' });
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const record = (level: string) => (msg: string) => void lines.push({ level, msg });
  worker = await startEmbeddedWorker(t, base, { log: { info: record('info'), warn: record('warn'), error: record('error') }, listening: { offlineProcesses: 1, avatarModels: { dir } } });
});
afterAll(async () => {
  for (const p of pages) p.close();
  await worker?.stop();
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!install)("an avatar's speech model (offline recogniser, ADR 105)", () => {
  it('holds the words of its knowledge base, asked of the portal when the mic turns on', async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: owner.headers })).json().jwtToken as string;
    const bearer = { authorization: `Bearer ${jwt}` };
    const collection = (await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers: bearer, payload: { name: 'Bar' } })).json().data as { id: number };
    // Words in the pronunciation dictionary that Debian's generic model lacks: only the knowledge base brings them.
    const item = await t.app.inject({ method: 'POST', url: '/knowledge', headers: bearer, payload: { collection_id: collection.id, name: 'Menu', knowledge_type: 'text', content: 'We pour absinthe on Fridays. The abalones come from the harbour.' } });
    expect(item.statusCode).toBe(200);
    await t.app.knowledge.ingestion.idle();
    const avatar = await createAvatar(t.database, owner.id, 'Barkeep');
    await t.database.db.update(avatars).set({ config: { wakeUpMessage: 'Welcome to the bar.', customData: { collection_ids: [collection.id] } } }).where(eq(avatars.id, avatar.id));

    const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: avatar.id } });
    const body = res.json() as TLiveStartAnswer;
    expect(body.status, res.body).toBe('OK');
    const page = new PageClient(body, { voice: true });
    pages.push(page);
    await page.waitFor('ready');
    expect(await readdir(dir).catch(() => [])).toEqual([]); // nothing built before the mic is on
    page.send({ type: 'mic', enabled: true });
    await until(() => lines.some((l) => /avatar's model|speech model/.test(l.msg)), 240_000, "the avatar's model");
    expect(lines.filter((l) => /avatar's model|speech model|knowledge base/.test(l.msg)).map((l) => `${l.level} ${l.msg}`)).toEqual(["info the offline recogniser has the avatar's model"]);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.lm.bin'));
    expect(files).toHaveLength(1);
    const model = await readTrieModel(await readFile(path.join(dir, files[0]!)));
    expect(model.words).toEqual(expect.arrayContaining(['absinthe', 'abalones']));
  }, 300_000);
});
