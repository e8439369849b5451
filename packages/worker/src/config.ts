import { z } from 'zod';

const ZWorkerEnv = z.object({
  serverUrl: z.url({ protocol: /^https?$/, error: 'the server URL (--server) must be http(s)://…' }),
  secret: z.string({ error: 'WORKER_SECRET is required' }).min(16, 'WORKER_SECRET must be at least 16 characters'),
  name: z.string().min(1).max(100).optional(),
  wsUrl: z.url({ protocol: /^wss?$/, error: '--ws-url must be ws(s)://…' }).optional(),
});

/** The worker's configuration: flags first, then its environment. The only reader of env here. */
export function loadWorkerConfig(env: Record<string, string | undefined>, flags: { server?: string; name?: string; wsUrl?: string }) {
  const parsed = ZWorkerEnv.safeParse({
    serverUrl: flags.server ?? env.WORKER_SERVER_URL,
    secret: env.WORKER_SECRET,
    name: flags.name ?? env.WORKER_NAME,
    wsUrl: flags.wsUrl ?? env.WORKER_WS_URL,
  });
  if (!parsed.success) throw new Error(`Invalid worker configuration:\n${parsed.error.issues.map((i) => `  - ${i.message}`).join('\n')}`);
  return parsed.data;
}
