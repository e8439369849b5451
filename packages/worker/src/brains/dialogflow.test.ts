import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TLiveBrainConfig } from '@persona/contract';
import { collect, sessionConfig, testDeps, textOf, type TestDeps } from '../test/brain-deps.js';
import { startFakeDialogflow, type FakeDialogflow } from '../test/fake-dialogflow.js';
import { createDialogflowBrain, detectIntentUrl, dialogflowSessionId } from './dialogflow.js';
import { ProviderError } from '../core/errors.js';

type DialogflowConfig = Extract<TLiveBrainConfig, { kind: 'dialogflow' }>;

// A fresh fake (and so a fresh service-account key) per test: the token cache is per key.
let fake: FakeDialogflow;
const opened: TestDeps[] = [];
beforeEach(async () => {
  fake = await startFakeDialogflow();
});
afterEach(async () => {
  for (const d of opened.splice(0)) d.fetch.close();
  await fake.close();
});

function dialogflow(over: Partial<DialogflowConfig> = {}): DialogflowConfig {
  return { kind: 'dialogflow', version: 'es', projectId: 'my-project', agentId: '', regionId: '', language: 'en-US', serviceAccountJson: fake.serviceAccountJson, ...over };
}

function brainFor(config: DialogflowConfig, sessionId = 'sess-0123456789abcdef') {
  const d = testDeps(sessionConfig(config, { sessionId }));
  opened.push(d);
  return createDialogflowBrain(d, { dialogflowBaseUrl: fake.origin });
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('Dialogflow brain', () => {
  it('ES: exchanges a signed JWT for a token, then detectIntent answers', async () => {
    const events = await collect(brainFor(dialogflow()), 'What are your opening hours?');
    expect(textOf(events)).toBe('ES heard: What are your opening hours?');
    expect(fake.tokenRequests).toHaveLength(1);
    const { claims, header } = fake.tokenRequests[0]!;
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    expect(claims).toMatchObject({ iss: 'avatar-bot@test-project.iam.gserviceaccount.com', aud: fake.tokenUri, scope: 'https://www.googleapis.com/auth/cloud-platform' });
    expect(fake.calls).toEqual([
      {
        version: 'es',
        path: '/v2/projects/my-project/agent/sessions/sess-0123456789abcdef:detectIntent',
        project: 'my-project',
        region: null,
        agent: null,
        session: 'sess-0123456789abcdef',
        body: { queryInput: { text: { text: 'What are your opening hours?', languageCode: 'en-US' } } },
      },
    ]);
  });

  it('CX: detectIntent on the agent in its region; the text replies are joined', async () => {
    const events = await collect(brainFor(dialogflow({ version: 'cx', agentId: 'a1b2c3', regionId: 'europe-west2', language: 'de' })), 'Hallo');
    expect(textOf(events)).toBe('CX heard: Hallo Anything else?');
    expect(fake.calls[0]).toMatchObject({
      version: 'cx',
      path: '/v3/projects/my-project/locations/europe-west2/agents/a1b2c3/sessions/sess-0123456789abcdef:detectIntent',
      body: { queryInput: { text: { text: 'Hallo' }, languageCode: 'de' } },
    });
  });

  it('caches the token until it expires, across turns and sessions with the same key', async () => {
    const one = brainFor(dialogflow());
    await collect(one, 'one');
    await collect(one, 'two');
    await collect(brainFor(dialogflow(), 'another-session'), 'three');
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.calls).toHaveLength(3);
  });

  it('gets a new token once when the API refuses the cached one', async () => {
    const brain = brainFor(dialogflow());
    await collect(brain, 'one');
    fake.revokeTokens();
    expect(textOf(await collect(brain, 'two'))).toBe('ES heard: two');
    expect(fake.tokenRequests).toHaveLength(2);
  });

  it('a key the token endpoint does not accept is a ProviderError with its status', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const json = JSON.stringify({ ...JSON.parse(fake.serviceAccountJson), private_key: other });
    const err = await failure(collect(brainFor(dialogflow({ serviceAccountJson: json })), 'Hi'));
    expect(err.status).toBe(400);
    expect(err.provider).toBe('dialogflow');
    expect(err.message).toContain('token exchange refused: HTTP 400: invalid_grant: Invalid JWT Signature.');
    expect(fake.calls).toHaveLength(0);
  });

  it('an unreadable key is a ProviderError that names what is wrong', async () => {
    expect((await failure(collect(brainFor(dialogflow({ serviceAccountJson: 'not json' })), 'Hi'))).message).toContain('not valid JSON');
    expect((await failure(collect(brainFor(dialogflow({ serviceAccountJson: '{"client_email":"x@y"}' })), 'Hi'))).message).toContain('no private_key');
    expect((await failure(collect(brainFor(dialogflow({ serviceAccountJson: '{"client_email":"x@y","private_key":"-----BEGIN PRIVATE KEY-----\\nAAAA\\n-----END PRIVATE KEY-----"}' })), 'Hi'))).message).toContain('cannot be read');
  });

  it('a detectIntent error is a ProviderError with the status', async () => {
    const err = await failure(collect(brainFor(dialogflow({ version: 'cx', agentId: '' })), 'Hi'));
    expect(err.message).toContain('agent id is missing');
    const d = testDeps(sessionConfig(dialogflow()));
    opened.push(d);
    const notFound = await failure(collect(createDialogflowBrain(d, { dialogflowBaseUrl: `${fake.origin}/nowhere` }), 'Hi'));
    expect(notFound.status).toBe(404);
  });
});

describe('Dialogflow addresses', () => {
  const base = { kind: 'dialogflow', projectId: 'p-1', agentId: 'agent-9', language: 'en', serviceAccountJson: '' } as const;
  it('uses the global or the regional endpoint', () => {
    expect(detectIntentUrl({ ...base, version: 'es', regionId: '' }, 's1')).toBe('https://dialogflow.googleapis.com/v2/projects/p-1/agent/sessions/s1:detectIntent');
    expect(detectIntentUrl({ ...base, version: 'es', regionId: 'europe-west1' }, 's1')).toBe('https://europe-west1-dialogflow.googleapis.com/v2/projects/p-1/locations/europe-west1/agent/sessions/s1:detectIntent');
    expect(detectIntentUrl({ ...base, version: 'cx', regionId: 'global' }, 's1')).toBe('https://dialogflow.googleapis.com/v3/projects/p-1/locations/global/agents/agent-9/sessions/s1:detectIntent');
    expect(detectIntentUrl({ ...base, version: 'cx', regionId: 'us-central1' }, 's1')).toBe('https://us-central1-dialogflow.googleapis.com/v3/projects/p-1/locations/us-central1/agents/agent-9/sessions/s1:detectIntent');
  });

  it('refuses a region that would change the host, and escapes the ids', () => {
    expect(() => detectIntentUrl({ ...base, version: 'cx', regionId: 'evil.example.com/x' }, 's1')).toThrow(ProviderError);
    expect(detectIntentUrl({ ...base, projectId: 'a/../b', version: 'es', regionId: '' }, 's1')).toBe('https://dialogflow.googleapis.com/v2/projects/a%2F..%2Fb/agent/sessions/s1:detectIntent');
  });

  it('keeps session ids Dialogflow accepts and hashes the others', () => {
    expect(dialogflowSessionId('sess-0123456789abcdef')).toBe('sess-0123456789abcdef');
    const long = dialogflowSessionId('x'.repeat(64));
    expect(long).toMatch(/^[0-9a-f]{32}$/);
    expect(dialogflowSessionId('has spaces')).toMatch(/^[0-9a-f]{32}$/);
  });
});
