import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { listen, readBody, sendJson } from '../../../net/src/test/http-fake.js';

/**
 * Google's token endpoint and Dialogflow's detectIntent, local:
 * - `POST /token` (form: grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer, assertion=JWT)
 *   verifies the assertion's RS256 signature with the service account's public key and its claims
 *   (iss, aud = this token URL, scope, iat/exp) and answers `{access_token, expires_in, token_type}`;
 * - `POST /v2/projects/{p}/agent/sessions/{s}:detectIntent` (ES, also under locations/{r}) and
 *   `POST /v3/projects/{p}/locations/{r}/agents/{a}/sessions/{s}:detectIntent` (CX) require a
 *   token it issued and answer as Dialogflow does (ES fulfillmentText/fulfillmentMessages,
 *   CX responseMessages).
 */
export interface DetectIntentCall {
  version: 'es' | 'cx';
  path: string;
  project: string;
  region: string | null;
  agent: string | null;
  session: string;
  body: Record<string, unknown>;
}

export interface FakeDialogflow {
  origin: string;
  tokenUri: string;
  /** A service-account JSON key whose token_uri is this fake. */
  serviceAccountJson: string;
  tokenRequests: { claims: Record<string, unknown>; header: Record<string, unknown> }[];
  calls: DetectIntentCall[];
  /** Makes every issued token invalid (detectIntent answers 401). */
  revokeTokens(): void;
  close(): Promise<void>;
}

export async function startFakeDialogflow(): Promise<FakeDialogflow> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const verifyKey: KeyObject = createPublicKey(publicKey.export({ type: 'spki', format: 'pem' }));
  const issued = new Set<string>();
  const tokenRequests: FakeDialogflow['tokenRequests'] = [];
  const calls: DetectIntentCall[] = [];
  let n = 0;
  let tokenUri = '';
  const clientEmail = 'avatar-bot@test-project.iam.gserviceaccount.com';

  const server = await listen(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const raw = await readBody(req);
    if (req.method === 'POST' && path === '/token') {
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
      const parts = (form.get('assertion') ?? '').split('.');
      if (parts.length !== 3) return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT' });
      const [h, c, sig] = parts as [string, string, string];
      const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
      const now = Math.floor(Date.now() / 1000);
      if (header.alg !== 'RS256' || !verify('RSA-SHA256', Buffer.from(`${h}.${c}`), verifyKey, Buffer.from(sig, 'base64url'))) {
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      if (claims.iss !== clientEmail || claims.aud !== tokenUri || typeof claims.scope !== 'string' || !claims.scope.includes('cloud-platform')) {
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT: claims' });
      }
      if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.exp <= now || claims.iat > now + 60 || claims.exp - claims.iat > 3600) {
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.' });
      }
      tokenRequests.push({ header, claims });
      const token = `ya29.fake-${++n}`;
      issued.add(token);
      return sendJson(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    const es = /^\/v2\/projects\/([^/]+)(?:\/locations\/([^/]+))?\/agent\/sessions\/([^/:]+):detectIntent$/.exec(path);
    const cx = /^\/v3\/projects\/([^/]+)\/locations\/([^/]+)\/agents\/([^/]+)\/sessions\/([^/:]+):detectIntent$/.exec(path);
    if (req.method !== 'POST' || (!es && !cx)) return sendJson(res, 404, { error: { code: 404, message: `Not found: ${path}`, status: 'NOT_FOUND' } });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !issued.has(token)) {
      return sendJson(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.', status: 'UNAUTHENTICATED' } });
    }
    const body = JSON.parse(raw) as { queryInput?: { text?: { text?: string; languageCode?: string }; languageCode?: string } };
    const call: DetectIntentCall = es
      ? { version: 'es', path, project: es[1]!, region: es[2] ?? null, agent: null, session: es[3]!, body }
      : { version: 'cx', path, project: cx![1]!, region: cx![2]!, agent: cx![3]!, session: cx![4]!, body };
    calls.push(call);
    if (es) {
      const q = body.queryInput?.text;
      if (!q?.text || !q.languageCode) return sendJson(res, 400, { error: { code: 400, message: 'Invalid query input', status: 'INVALID_ARGUMENT' } });
      return sendJson(res, 200, {
        responseId: `resp-${calls.length}`,
        queryResult: { queryText: q.text, languageCode: q.languageCode, fulfillmentText: `ES heard: ${q.text}`, fulfillmentMessages: [{ text: { text: [`ES heard: ${q.text}`] } }], intent: { displayName: 'Default Fallback Intent' } },
      });
    }
    const text = body.queryInput?.text?.text;
    if (!text || !body.queryInput?.languageCode) return sendJson(res, 400, { error: { code: 400, message: 'Invalid query input', status: 'INVALID_ARGUMENT' } });
    return sendJson(res, 200, {
      responseId: `resp-${calls.length}`,
      queryResult: { text, languageCode: body.queryInput.languageCode, responseMessages: [{ text: { text: [`CX heard: ${text}`] } }, { payload: { rich: true } }, { text: { text: ['Anything else?'] } }] },
    });
  });
  tokenUri = `${server.origin}/token`;
  return {
    origin: server.origin,
    tokenUri,
    serviceAccountJson: JSON.stringify({
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: 'key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: clientEmail,
      client_id: '1234567890',
      token_uri: tokenUri,
    }),
    tokenRequests,
    calls,
    revokeTokens: () => issued.clear(),
    close: server.close,
  };
}
