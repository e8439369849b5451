import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the LLM and ElevenLabs providers the Brain tab's look-ups reach through the
 * server (PROVIDER_OPENAI_URL, PROVIDER_ELEVENLABS_URL), speaking their real paths, headers and
 * status codes: OpenAI `GET /models` with a bearer key; ElevenLabs `GET
 * /v1/convai/conversation/token?agent_id=` (and `get-signed-url` for WebSocket) with `xi-api-key`;
 * ElevenLabs `GET /v1/voices` with `xi-api-key`.
 */
export const FAKE_PROVIDERS = {
  openAiKey: 'sk-e2e-openai-0123456789',
  openAiModels: ['gpt-4o-mini', 'gpt-4o'],
  publicAgent: 'agent_public_e2e_01',
  privateAgent: 'agent_private_e2e_1',
  elevenLabsKey: 'sk_e2e_eleven_0123456789',
  elevenLabsVoices: [
    { voice_id: 'e2eVoiceRachel01', name: 'Rachel' },
    { voice_id: 'e2eVoiceAdam0002', name: 'Adam' },
  ],
} as const;

export async function startFakeProviders(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/openai/models') {
      if (req.headers.authorization !== `Bearer ${FAKE_PROVIDERS.openAiKey}`) return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return send(200, { object: 'list', data: FAKE_PROVIDERS.openAiModels.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'openai' })) });
    }
    if (req.method === 'GET' && /^\/eleven\/v1\/convai\/conversation\/(token|get-signed-url)$/.test(url.pathname)) {
      const agent = url.searchParams.get('agent_id');
      const key = req.headers['xi-api-key'];
      const ok = () => send(200, url.pathname.endsWith('token') ? { token: 'e2e-conversation-token' } : { signed_url: 'wss://fake/convai?token=x' });
      if (agent === FAKE_PROVIDERS.publicAgent) return ok();
      if (agent === FAKE_PROVIDERS.privateAgent) {
        if (key === FAKE_PROVIDERS.elevenLabsKey) return ok();
        return send(key ? 403 : 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
      }
      return send(404, { detail: { status: 'agent_not_found', message: 'Agent not found' } });
    }
    if (req.method === 'GET' && url.pathname === '/eleven/v1/voices') {
      if (req.headers['xi-api-key'] !== FAKE_PROVIDERS.elevenLabsKey) return send(401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
      return send(200, { voices: FAKE_PROVIDERS.elevenLabsVoices.map((v) => ({ ...v, labels: { accent: 'american', gender: 'female' } })) });
    }
    send(404, { detail: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
