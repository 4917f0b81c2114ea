// One access-log line per request instead of Fastify's two ("incoming request" then "request completed"): the
// completed line carries the method, path (no query string), client address, status and response time, so the
// first line added nothing but a second formatted, redacted and written record (about 3 % of a ping's CPU,
// docs/benchmarks.md "Per-request overhead"). Bodies are never logged (the serializers in lib/logger.ts).
// A route may declare `config.accessLog: 'errors'` (the liveness ping a load balancer calls every few seconds):
// its successful answers write no line, its failures (status ≥ 400, or an error) still do
// (docs/operations.md "Logging", ADRs 0036 and 0078).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { routeConfig } from './route-config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'errors': access-log only answers with status ≥ 400 or an error (default: every answer). */
    accessLog?: 'errors';
  }
}

export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error)
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (reply.statusCode >= 400 || routeConfig(request).accessLog !== 'errors') {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
