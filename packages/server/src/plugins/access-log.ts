import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One access-log line per request — method, url, client, status, time — where Fastify writes
 * two ('incoming request' and 'request completed'). Serialising and writing a log line is a
 * large share of a small call's cost. A request that never completes (the client went away)
 * still leaves a line: Fastify reports it through requestCompleted with its error. A route's
 * logLevel (e.g. warn for /api/health) still silences its line.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
