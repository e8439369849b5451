import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvatarMessages, ErrorMessages, FailReason, SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, keyHeader, loginAs, multipart, sampleFiles, validAvatar } from '../../test/factories.js';
import { modelJson, packGlb } from '../../test/glb.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type User = Awaited<ReturnType<typeof createSignedInUser>>;
const enterprise = () => createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });


const add = (user: User, payload: object) => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });
const addV2 = (user: User, json: object, files: Parameters<typeof multipart>[1] = []) => {
  const body = multipart({ json: JSON.stringify(json) }, files);
  return t.app.inject({ method: 'POST', url: '/api/add_avatar_v2', headers: { ...user.headers, ...body.headers }, payload: body.payload });
};
const storedFiles = () => {
  const dir = path.join(t.config.dataDir, 'files', 'avatars');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
};

describe('creating and reading avatars', () => {
  it('creates an avatar in echo-back mode, hosts its config and lists it', async () => {
    const user = await enterprise();
    const res = await add(user, validAvatar({ nlpEngine: 10, setupMode: 1 }));
    expect(res.statusCode).toBe(200);
    const agent = res.json().agent;
    expect(res.json().status).toBe('OK');
    expect(agent).toMatchObject({ name: 'Receptionist', nlpEngine: 0, nlpEngineName: 'Echo Test', setupMode: 0, dhType: 2, dhTypeName: 'Upper Body 3D', usersCount: 0, version: expect.any(Number) });
    expect(agent.avatarConfigURL).toBe(`http://portal.test/config/avatars/${agent.id}.json`);
    expect(agent.accessLink).toBe(`http://portal.test/avatar/${agent.id}`);
    expect(agent.customData).toMatchObject({ transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [] });
    expect(agent.mediaDetails).toEqual({ backgroundImage: [], scene: [], avatarModel: [] });

    const list = await t.app.inject({ url: '/api/list_avatar', headers: user.headers });
    expect(list.json().agents.map((a: { id: number }) => a.id)).toEqual([agent.id]);
    const got = await t.app.inject({ url: `/api/get_avatar?agentId=${agent.id}`, headers: user.headers });
    expect(got.json().agent.id).toBe(agent.id);

    const hosted = await t.app.inject({ url: `/config/avatars/${agent.id}.json` });
    expect(hosted.json()).toEqual({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Subtitle: { Enabled: true } });
    // The ParentConfig chain ends in the product's catalogue.
    let parent: string | undefined = hosted.json().ParentConfig;
    const chain: string[] = [];
    while (parent) {
      const res2 = await t.app.inject({ url: parent });
      expect(res2.statusCode).toBe(200);
      chain.push(parent);
      parent = res2.json().ParentConfig;
    }
    expect(chain).toEqual(['/catalog/avatar-configs/maya-upper.json', '/catalog/avatar-configs/base-upper-body.json', '/catalog/avatar-configs/base.json']);
  });

  it("keeps other accounts' avatars out of reach (404)", async () => {
    const owner = await enterprise();
    const other = await enterprise();
    const { agent } = (await add(owner, validAvatar())).json();
    expect((await t.app.inject({ url: `/api/get_avatar?agentId=${agent.id}`, headers: other.headers })).statusCode).toBe(404);
    expect((await add(other, validAvatar({ id: agent.id, version: agent.version }))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/del_avatar', headers: other.headers, payload: { agentId: agent.id, mode: 'delete' } })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/list_avatar', headers: other.headers })).json().agents).toEqual([]);
    expect((await t.app.inject({ url: '/api/list_avatar', headers: keyHeader })).statusCode).toBe(401);
  });

  it('refuses a new avatar beyond the plan maximum with AvatarCreateLimitReached', async () => {
    const free = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.FREE });
    expect((await add(free, validAvatar())).statusCode).toBe(200);
    const second = await add(free, validAvatar({ name: 'Second' }));
    expect(second.statusCode).toBe(403);
    expect(second.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.AvatarCreateLimitReached });
  });

  it('requires PRO or ENTERPRISE for image avatars', async () => {
    const starter = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.STARTER });
    const res = await add(starter, validAvatar({ dhType: 1 }));
    expect(res.statusCode).toBe(403);
    expect(res.json().errors).toEqual([AvatarMessages.higherPlanRequired]);
  });
});

describe('validation (spec section 5)', () => {
  it.each([
    [{ name: '' }, AvatarMessages.nameRequired],
    [{ nlpEngine: undefined }, AvatarMessages.engineRequired],
    [{ dhType: undefined }, AvatarMessages.typeRequired],
    [{ wakeUpMessage: '' }, AvatarMessages.wakeUpRequired],
    [{ dailyLimitPerSession: 0 }, AvatarMessages.dailyLimitPerSession],
    [{ dailyLimitPerIP: -5 }, AvatarMessages.dailyLimitPerIP],
    [{ dailyLimits: { Demo: 0 } }, AvatarMessages.demoLimit],
    [{ dailyLimitPerSession: 'abc' }, AvatarMessages.mustBeNumber],
    [{ idleTimeout: 601 }, AvatarMessages.idleTimeoutMax],
    [{ oauthEnabled: 1 }, AvatarMessages.oauthAppRequired],
    [{ oauthEnabled: 1, partnerOauthAppId: 'abc' }, AvatarMessages.oauthAppNumeric],
    [{ billingAuthURL: 'not a url' }, AvatarMessages.billingAuthUrl],
    [{ billingAuthURL: 'https://billing.example.com/ping' }, AvatarMessages.billingHeaderRequired],
    [{ avatarJson: '{not json' }, AvatarMessages.jsonInvalid],
    [{ clientJson: '[1,2]' }, AvatarMessages.jsonInvalid],
    [{ avatarJson: '{}' }, AvatarMessages.selectionRequired],
    [{ clientConfigURL: 'ftp://x' }, AvatarMessages.configUrl],
  ])('refuses %j with "%s" (InvalidOrMissingParams)', async (override, message) => {
    const user = await enterprise();
    const res = await add(user, validAvatar(override));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
    expect(res.json().errors).toContain(message);
  });

  it('accepts -1 (unlimited) limits', async () => {
    const user = await enterprise();
    const res = await add(user, validAvatar({ dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } }));
    expect(res.json().agent).toMatchObject({ dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } });
  });
});

describe('updates', () => {
  it('refuses an update based on an older version (StaleRequest) and keeps the newer data', async () => {
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar())).json();
    const tabA = await add(user, validAvatar({ id: agent.id, version: agent.version, name: 'From tab A' }));
    expect(tabA.statusCode).toBe(200);
    const tabB = await add(user, validAvatar({ id: agent.id, version: agent.version, name: 'From tab B' }));
    expect(tabB.statusCode).toBe(409);
    expect(tabB.json()).toEqual({ status: 'FAIL', errors: [ErrorMessages.staleRequest], failReason: FailReason.StaleRequest });
    const now = (await t.app.inject({ url: `/api/get_avatar?agentId=${agent.id}`, headers: user.headers })).json().agent;
    expect(now.name).toBe('From tab A');
  });

  it('encrypts secrets at rest, returns them masked, keeps them on a save that does not change them, clears them when emptied', async () => {
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar())).json();
    const llm = { provider: 'groq', base_url: 'https://api.groq.com/openai/v1', model: 'llama', api_key: 'gsk_live_abcdefghijkl1234', summary_enabled: true };
    const saved = await add(user, validAvatar({ id: agent.id, version: agent.version, nlpEngine: 10, restApiKey: 'rest-secret-9876', customData: { agent_pipeline_config: { llm } } }));
    expect(saved.statusCode).toBe(200);
    const a = saved.json().agent;
    expect(a.nlpEngine).toBe(10);
    expect(a.customData.agent_pipeline_config.llm.api_key).toBe('••••1234');
    expect(a.restApiKey).toBe('••••9876');
    const [row] = (await t.database.db.execute(sql`select config::text as c from avatars where id = ${agent.id}`)).rows as { c: string }[];
    expect(row!.c).not.toContain('gsk_live');
    expect(row!.c).not.toContain('rest-secret');

    // The editor sends back what it got (masked): the secret stays.
    const again = await add(user, validAvatar({ id: a.id, version: a.version, nlpEngine: 10, restApiKey: a.restApiKey, customData: a.customData, name: 'Renamed' }));
    expect(again.json().agent.customData.agent_pipeline_config.llm.api_key).toBe('••••1234');
    const cleared = await add(user, validAvatar({ id: a.id, version: again.json().agent.version, nlpEngine: 10, restApiKey: '', customData: a.customData }));
    expect(cleared.json().agent.restApiKey).toBeUndefined();
  });

  it('lets only an admin acting for the customer change realtime, chat-history, idle timeout and words per second', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar({ realtime: true, idleTimeout: 120, customData: { words_per_sec: 5 } }))).json();
    expect(agent).toMatchObject({ idleTimeout: 300 });
    expect(agent.realtime ?? false).toBe(false);
    expect(agent.customData.words_per_sec).toBe(3);

    const proxy = await loginAs(t.app, admin.headers, user);
    const proxyUser = { ...user, headers: proxy.headers };
    const res = await add(proxyUser, validAvatar({ id: agent.id, version: agent.version, realtime: true, idleTimeout: 120, sendChatHistory: true, customData: { words_per_sec: 5 } }));
    expect(res.json().agent).toMatchObject({ realtime: true, idleTimeout: 120, sendChatHistory: true });
    expect(res.json().agent.customData.words_per_sec).toBe(5);
  });

  it('accepts the older interruption names', async () => {
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar())).json();
    const res = await add(user, validAvatar({ id: agent.id, version: agent.version, customData: { agent_pipeline_config: { interrupt_handling: { allow_interruptions: true, interrupt_speech_duration: 0.7, interrupt_min_words: 2 } } } }));
    expect(res.json().agent.customData.agent_pipeline_config.interrupt_handling).toEqual({ allow_interruptions: true, min_interruption_duration: 0.7, min_interruption_words: 2 });
  });

  it('stores fillers (ADR 100) in agent_pipeline_config.fillers, and refuses more than 10 lines or one over 80 characters', async () => {
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar())).json();
    const fillers = { enabled: true, phrases: ['Let me look that up.', 'One moment, please.'] };
    const res = await add(user, validAvatar({ id: agent.id, version: agent.version, customData: { agent_pipeline_config: { fillers } } }));
    expect(res.statusCode).toBe(200);
    expect(res.json().agent.customData.agent_pipeline_config.fillers).toEqual(fillers);
    const saved = res.json().agent;
    for (const [bad, message] of [
      [{ enabled: true, phrases: Array.from({ length: 11 }, () => 'One moment.') }, 'At most 10 fillers'],
      [{ enabled: true, phrases: ['x'.repeat(81)] }, 'A filler must be at most 80 characters'],
      [{ enabled: 'yes' }, null],
    ] as const) {
      const refused = await add(user, validAvatar({ id: saved.id, version: saved.version, customData: { agent_pipeline_config: { fillers: bad } } }));
      expect(refused.statusCode, JSON.stringify(bad)).toBe(400);
      if (message) expect(JSON.stringify(refused.json())).toContain(message);
    }
  });

  it('keeps a self-hosted config URL until the customer transfers hosting', async () => {
    const user = await enterprise();
    const own = 'https://cdn.customer.example/avatar.json';
    const { agent } = (await add(user, validAvatar({ avatarConfigURL: own }))).json();
    expect(agent.avatarConfigURL).toBe(own);
    const moved = await add(user, validAvatar({ id: agent.id, version: agent.version, avatarConfigURL: own, transferConfigHosting: true }));
    expect(moved.json().agent.avatarConfigURL).toBe(`http://portal.test/config/avatars/${agent.id}.json`);
  });
});

describe('media with add_avatar_v2', () => {
  it('stores background images, videos and scenes, lists them in mediaDetails, serves them, and deletes them', async () => {
    const user = await enterprise();
    const res = await addV2(user, validAvatar(), [
      { field: 'backgroundImage', filename: 'office.png', data: sampleFiles.png(), type: 'image/png' },
      { field: 'scene', filename: 'room.glb', data: sampleFiles.glb() },
    ]);
    expect(res.statusCode).toBe(200);
    const agent = res.json().agent;
    expect(agent.mediaDetails.backgroundImage).toHaveLength(1);
    expect(agent.mediaDetails.scene).toHaveLength(1);
    expect(agent.mediaDetails.backgroundImage[0].url).toMatch(/^\/files\//);
    const imageUrl = new URL(agent.mediaDetails.backgroundImage[0].url, 'http://portal.test');
    const served = await t.app.inject({ url: imageUrl.pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(sampleFiles.png())).toBe(true);

    const video = await addV2(user, validAvatar({ id: agent.id, version: agent.version }), [{ field: 'backgroundImage', filename: 'loop.mp4', data: sampleFiles.mp4() }]);
    const withVideo = video.json().agent;
    expect(withVideo.mediaDetails.backgroundImage.map((m: { type: string }) => m.type)).toEqual(['image/png', 'video/mp4']);

    const del = await addV2(user, validAvatar({ id: agent.id, version: withVideo.version, deleteMediaIds: [agent.mediaDetails.backgroundImage[0].id] }));
    expect(del.json().agent.mediaDetails.backgroundImage).toHaveLength(1);
    expect((await t.app.inject({ url: imageUrl.pathname })).statusCode).toBe(404);
  });

  it('refuses a disguised file (.png that is a zip) and stores nothing', async () => {
    const user = await enterprise();
    const before = storedFiles().length;
    const res = await addV2(user, validAvatar(), [{ field: 'backgroundImage', filename: 'photo.png', data: sampleFiles.zip(), type: 'image/png' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatch(/must be a \.jpg or \.png image/);
    expect(storedFiles().length).toBe(before);
    expect((await t.app.inject({ url: '/api/list_avatar', headers: user.headers })).json().agents).toEqual([]);
  });

  it('refuses an over-size image with the spec message and stores nothing', async () => {
    const user = await enterprise();
    const before = storedFiles().length;
    const res = await addV2(user, validAvatar(), [{ field: 'backgroundImage', filename: 'big.jpg', data: sampleFiles.jpeg(10 * 1024 * 1024 + 1) }]);
    expect(res.statusCode).toBe(413);
    expect(res.json().errors).toEqual(['File size exceeds 10MB for image.']);
    expect(storedFiles().length).toBe(before);
  });

  it('refuses a scene that is not .glb, and deletes stored files when the avatar itself is refused', async () => {
    const user = await enterprise();
    const before = storedFiles().length;
    const wrong = await addV2(user, validAvatar(), [{ field: 'scene', filename: 'scene.glb', data: sampleFiles.png() }]);
    expect(wrong.statusCode).toBe(400);
    const refused = await addV2(user, validAvatar({ name: '' }), [{ field: 'backgroundImage', filename: 'ok.png', data: sampleFiles.png() }]);
    expect(refused.statusCode).toBe(400);
    expect(storedFiles().length).toBe(before);
  });
});

describe('own avatar models (.glb / .vrm)', () => {
  it('checks an uploaded VRM, keeps it with what was found, and serves it to the avatar page', async () => {
    const user = await enterprise();
    const vrm = packGlb(modelJson({ vertices: 20_000, extensions: { VRMC_vrm: { expressions: { preset: { aa: {}, ih: {}, ou: {}, ee: {}, oh: {}, blink: {} } } } } }));
    const res = await addV2(user, validAvatar(), [{ field: 'avatarModel', filename: 'me.vrm', data: vrm }]);
    expect(res.statusCode).toBe(200);
    const [model] = res.json().agent.mediaDetails.avatarModel;
    expect(model).toMatchObject({ name: 'me.vrm', type: 'model/gltf-binary', model: { format: 'vrm', vertices: 20_000, lipSync: 'vrm', blink: true, warnings: [] } });
    const served = await t.app.inject({ url: new URL(model.url, 'http://portal.test').pathname });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(vrm)).toBe(true);
  });

  it('refuses a model over the budget, or not a glTF, and keeps no file', async () => {
    const user = await enterprise();
    const before = storedFiles().length;
    const heavy = await addV2(user, validAvatar(), [{ field: 'avatarModel', filename: 'heavy.glb', data: packGlb(modelJson({ vertices: 150_001 })) }]);
    expect(heavy.statusCode).toBe(400);
    expect(heavy.json().errors).toEqual(['The model has 150,001 vertices; at most 150,000 can be drawn smoothly.']);
    const png = await addV2(user, validAvatar(), [{ field: 'avatarModel', filename: 'face.vrm', data: sampleFiles.png() }]);
    expect(png.statusCode).toBe(400);
    expect(png.json().errors).toEqual(['The avatar model must be a .glb or .vrm file.']);
    expect(storedFiles().length).toBe(before);
    expect((await t.app.inject({ url: '/api/list_avatar', headers: user.headers })).json().agents).toEqual([]);
  });
});

describe('stored avatars of older shapes', () => {
  it('answers them typed: numeric strings read as numbers, ill-typed values left out, unknown keys kept', async () => {
    const user = await enterprise();
    const { agent } = (await add(user, validAvatar({ customData: { agent_pipeline_config: { tts: { voice_id: 'Joanna', model: 'neural' } } } }))).json();
    // As an older version (or a hand-edited row) may have stored it.
    await t.database.db.execute(sql`
      update avatars set config = config
        || jsonb_build_object('dailyLimitPerSession', '600', 'idleTimeout', jsonb_build_object('seconds', 5), 'realtime', 'yes', 'legacyFlag', 'kept')
        || jsonb_build_object('customData', (config->'customData')
             || jsonb_build_object('words_per_sec', '4', 'summaryEnabled', 'no')
             || jsonb_build_object('agent_pipeline_config', jsonb_build_object('tts', jsonb_build_object('voice_id', 7, 'model', 'neural'), 'vad_options', 'none')))
      where id = ${agent.id}`);
    for (const url of ['/api/list_avatar', `/api/get_avatar?agentId=${agent.id}`]) {
      const res = await t.app.inject({ url, headers: user.headers });
      expect(res.statusCode).toBe(200);
      const got = url.startsWith('/api/list') ? res.json().agents[0] : res.json().agent;
      expect(got).toMatchObject({ id: agent.id, name: 'Receptionist', dailyLimitPerSession: 600, legacyFlag: 'kept', wakeUpMessage: agent.wakeUpMessage });
      expect(got).not.toHaveProperty('idleTimeout');
      expect(got).not.toHaveProperty('realtime');
      expect(got.customData).toMatchObject({ words_per_sec: 4, transcriptionStreaming: false, collection_ids: [] });
      expect(got.customData).not.toHaveProperty('summaryEnabled');
      expect(got.customData.agent_pipeline_config).toEqual({ tts: { model: 'neural' } });
    }
  });
});

describe('deleting', () => {
  it('deletes the avatar and its files', async () => {
    const user = await enterprise();
    const { agent } = (await addV2(user, validAvatar(), [{ field: 'backgroundImage', filename: 'a.png', data: sampleFiles.png() }])).json();
    const url = new URL(agent.mediaDetails.backgroundImage[0].url, 'http://portal.test').pathname;
    const res = await t.app.inject({ method: 'POST', url: '/api/del_avatar', headers: user.headers, payload: { agentId: agent.id, mode: 'delete' } });
    expect(res.json()).toEqual({ status: 'OK', agentId: agent.id, errors: [] });
    expect((await t.app.inject({ url, headers: user.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/get_avatar?agentId=${agent.id}`, headers: user.headers })).statusCode).toBe(404);
  });
});
