import type { TAvatar } from '@persona/contract';
import { json, type Handler } from '../../../test/fetch-mock';

export const catalog = {
  image: [{ id: 'maya-image', name: 'Maya (illustration)', dhType: 1, thumbnail: '/catalog/thumbs/maya.svg', avatarConfigURL: '/catalog/avatar-configs/maya-image.json' }],
  upperBody: [
    { id: 'maya-upper', name: 'Maya', dhType: 2, thumbnail: '/catalog/thumbs/maya.svg', avatarConfigURL: '/catalog/avatar-configs/maya-upper.json' },
    { id: 'leo-upper', name: 'Leo', dhType: 2, thumbnail: '/catalog/thumbs/leo.svg', avatarConfigURL: '/catalog/avatar-configs/leo-upper.json' },
  ],
  fullBody: [{ id: 'maya-full', name: 'Maya', dhType: 3, thumbnail: '/catalog/thumbs/maya-full.svg', avatarConfigURL: '/catalog/avatar-configs/maya-full.json' }],
  video: [],
};

export const environments = {
  env2d: [{ id: 'office', name: 'Office', url: '/catalog/environments/office.svg', thumbnail: '/catalog/environments/office.svg' }],
  env3d: [{ id: 'plaza', name: 'Plaza', 'gltf-model': '/catalog/environments/plaza.glb', thumbnail: '/catalog/environments/plaza-thumb.svg' }],
  video: [],
  light: [{ id: 'studio', name: 'Studio', preset: 'studio', intensity: 1 }],
};

export const account = (subscriptionType = 1) => ({
  status: 'OK',
  accountDetails: {
    Id: 7,
    Name: 'Ursula User',
    Email: 'ursula@example.com',
    Status: 'ACTIVE',
    'Create Date': '2026-01-01T00:00:00.000Z',
    'Last Updated': '2026-01-01T00:00:00.000Z',
    'Subscribed Since': '2026-01-01T00:00:00.000Z',
    userType: 'USER',
    requestedSubType: null,
    licenses: { webgl: { subscriptionType } },
    maxAvatars: 3,
    contactEmail: 'avatars@studio.example',
    'Assigned Pools': 'default',
    customAvatarsJsonUrl: 'http://localhost:3000/api/custom_avatars',
    defaultAvatarsList: 'http://localhost:3000/catalog/avatars.json',
    defaultRealtimeSettingsUrl: 'http://localhost:3000/catalog/realtime-settings.json',
    defaultEnvsListUrl: 'http://localhost:3000/catalog/environments.json',
    encKeys: [{ id: 11, name: 'Default key', defaultKey: true }],
    languages: [{ code: 'aa', name: 'Multilingual' }],
    lists: {},
  },
});

export function agent(over: Partial<TAvatar> = {}): TAvatar {
  const id = over.id ?? 101;
  return {
    id,
    version: 3,
    name: 'Maya Helper',
    nlpEngine: 0,
    nlpEngineName: 'Echo Test',
    dhType: 2,
    dhTypeName: 'Upper Body 3D',
    setupMode: 0,
    usersCount: 2,
    created: '2026-03-01T10:00:00.000Z',
    updated: '2026-03-02T10:00:00.000Z',
    wakeUpMessage: 'Hello there!',
    dailyLimitPerSession: 900,
    dailyLimitPerIP: -1,
    dailyLimits: { Demo: 300 },
    idleTimeout: 300,
    sendChatHistory: false,
    handleSttResponse: false,
    realtime: false,
    permissions: 0,
    oauthEnabled: 0,
    billingAuthPingTime: 30,
    functions: [],
    customData: { transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [], agent_pipeline_config: { llm: { api_key: '••••1234' } } },
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
    clientJson: JSON.stringify({ locale: 'en-US' }),
    avatarConfigURL: `http://localhost:3000/config/avatars/${id}.json`,
    clientConfigURL: `http://localhost:3000/config/clients/${id}.json`,
    mediaDetails: { backgroundImage: [], scene: [] },
    accessLink: `http://localhost:3000/avatar/${id}`,
    ...over,
  } as TAvatar;
}

/** The calls the creator makes on load, answering with the given avatars. */
export function creatorApi(agents: TAvatar[], extra: Record<string, Handler> = {}, plan = 1): Record<string, Handler> {
  return {
    'GET /api/account_info': () => json(account(plan)),
    'GET /api/list_avatar': () => json({ status: 'OK', agents }),
    'GET /catalog/avatars.json': () => json(catalog),
    'GET /api/custom_avatars': () => json({ status: 'OK', image: [] }),
    'GET /catalog/environments.json': () => json(environments),
    'GET /catalog/client-config.json': () => json({ chat: { showHistory: true } }),
    'GET /catalog/avatar-configs/maya-upper.json': () => json({ ParentConfig: '/catalog/avatar-configs/base.json', Avatar: { model: 'maya' } }),
    'GET /catalog/avatar-configs/leo-upper.json': () => json({ ParentConfig: '/catalog/avatar-configs/base.json' }),
    'GET /catalog/avatar-configs/base.json': () => json({ panel: { Enable: false, contentURL: '', BgColor: '#FFFFFF' }, Scene: { background: 'transparent: false' } }),
    ...extra,
  };
}

/** The `json` field of a multipart add_avatar_v2 call made through fetch. */
export async function multipartJson(init: RequestInit | undefined): Promise<Record<string, unknown>> {
  const body = init?.body;
  if (!(body instanceof FormData)) throw new Error('not a multipart request');
  return JSON.parse(String(body.get('json'))) as Record<string, unknown>;
}
