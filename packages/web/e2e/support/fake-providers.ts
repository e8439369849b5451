import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/**
 * A stand-in for the LLM and ElevenLabs providers the Brain tab's look-ups reach through the
 * server (PROVIDER_OPENAI_URL, PROVIDER_ELEVENLABS_URL), speaking their real paths, headers and
 * status codes: OpenAI `GET /models` with a bearer key; ElevenLabs `GET
 * /v1/convai/conversation/token?agent_id=` (and `get-signed-url` for WebSocket) with `xi-api-key`;
 * ElevenLabs `GET /v1/voices` with `xi-api-key`.
 *
 * With `convAi`, the conversations of that fake's agents are its own: `/eleven/v1/convai/conversation…`
 * naming one of them (the signed-URL GET, the agent check, the conversation socket's upgrade) is
 * forwarded there with `/eleven` dropped, so one PROVIDER_ELEVENLABS_URL serves the Brain tab's
 * look-ups and the worker's live conversations.
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

export interface FakeProvidersOptions {
  /** An ElevenLabs Conversational AI fake (its API base) and the agents it answers for. */
  convAi?: { url: string; agents: readonly string[] };
}

export async function startFakeProviders(opts: FakeProvidersOptions = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const convAi = opts.convAi ? { target: new URL(opts.convAi.url), agents: new Set(opts.convAi.agents) } : null;
  /** The ConvAI fake's path for a request to forward there, or null. */
  const convAiPath = (req: http.IncomingMessage): string | null => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (!convAi || !url.pathname.startsWith('/eleven/v1/convai/conversation')) return null;
    return convAi.agents.has(url.searchParams.get('agent_id') ?? '') ? `${url.pathname.slice('/eleven'.length)}${url.search}` : null;
  };
  const tunnels = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const forward = convAiPath(req);
    if (forward && convAi) {
      const upstream = http.request({ host: convAi.target.hostname, port: convAi.target.port, method: req.method, path: forward, headers: { ...req.headers, host: convAi.target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => send(502, { detail: 'the ConvAI fake did not answer' }));
      req.pipe(upstream);
      return;
    }
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
  // The conversation socket: the upgrade request, rewritten, then raw bytes both ways.
  server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    const forward = convAiPath(req);
    if (!forward || !convAi) return socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    const upstream = net.connect(Number(convAi.target.port), convAi.target.hostname, () => {
      const lines = [`${req.method ?? 'GET'} ${forward} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? convAi.target.host : req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    for (const end of [socket, upstream]) {
      tunnels.add(end);
      end.on('close', () => {
        tunnels.delete(end);
        socket.destroy();
        upstream.destroy();
      });
      end.on('error', () => end.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of tunnels) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
