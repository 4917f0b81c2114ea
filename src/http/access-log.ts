// One access-log line per request instead of Fastify's two ("incoming request" then "request completed"): the
// completed line carries the method, path (no query string), client address, status and response time, so the
// first line added nothing but a second formatted, redacted and written record (about 3 % of a ping's CPU,
// docs/benchmarks.md "Per-request overhead"). Bodies are never logged (the serializers in lib/logger.ts).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
