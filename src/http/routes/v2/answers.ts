// What the v2 answers share (spec §2.7): the streamed reply, took_ms and the filters echoed in meta.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ViewOptions } from '../../../domain/windows/view.ts';
import { bodyStream } from './stream.ts';
import { negotiateEncoding } from '../../content-encoding.ts';

export function filtersEcho(o: ViewOptions) {
  return {
    include_cleared: o.include_cleared,
    confirmed_only: o.confirmed_only,
    known_exploited_only: o.known_exploited_only,
    fix_available_only: o.fix_available_only,
    cve_page: o.cve_page,
    cve_page_size: o.cve_page_size,
  };
}

export const tookMs = (req: FastifyRequest) => Math.max(0, Math.round(performance.now() - req.startedAt));

/** Sends a streamed JSON body, compressed when the client accepts br or gzip. */
export function sendStream(req: FastifyRequest, reply: FastifyReply, body: AsyncGenerator<Buffer>) {
  const enc = negotiateEncoding(req.headers['accept-encoding']);
  reply.code(200).type('application/json; charset=utf-8').header('vary', 'Accept-Encoding');
  if (enc) reply.header('content-encoding', enc);
  return reply.send(bodyStream(body, enc));
}
