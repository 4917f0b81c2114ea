// The streamed answer of correlate-cves and of the stored assets' results (GET /api/v1/assets/results).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiBlock } from '../../envelope.ts';
import { AnswerWriter, CHUNK_BYTES, correlateBody, refundOnError } from '../../views/correlate-json.ts';
import type { CorrelateAnswers } from '../../../services/asset-correlation.ts';
import { noDecisionCounts, type CorrelateOptions } from '../../../services/correlation-answer.ts';

export const tookMs = (req: FastifyRequest) => Math.max(0, Math.round(performance.now() - req.startedAt));

/**
 * Streams a correlation answer (correlate-cves, the stored assets' results). Bytes written by views/correlate-json.ts,
 * not the schema's compiled serializer: a 200-asset answer can list tens of thousands of CVEs (23 MB in
 * bench/correlate.ts; gigabytes when every asset names a large product family), and the parts of each entry that do
 * not depend on the asset are encoded once per cached card and range (ADRs 0038, 0049). The answer is streamed asset
 * by asset, each decided as it is taken (ADR 0051): data.counts and meta.took_ms, written last, cover them all.
 * Tests validate the bytes against the route's schema with Ajv, and OpenAPI documents the route from the same schema.
 */
export function sendAnswers(
  req: FastifyRequest,
  reply: FastifyReply,
  r: CorrelateAnswers,
  options: CorrelateOptions,
  data: Record<string, unknown>,
  paging?: unknown,
) {
  const counts = { affected: 0, not_affected: 0, needs_review: 0 };
  const decisionCounts = r.decided ? noDecisionCounts() : null;
  const { sort, ...filters } = options;
  const w = new AnswerWriter();
  const answer = (i: number) => {
    const a = r.answer(i);
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += a.counts[k];
    if (decisionCounts && a.decisions)
      for (const k of Object.keys(decisionCounts) as (keyof typeof decisionCounts)[])
        decisionCounts[k] += a.decisions.counts[k];
    return a;
  };
  const body = correlateBody(
    w,
    apiBlock(req),
    r.count,
    answer,
    () => ({ rejected: r.rejected, counts, ...(decisionCounts ? { decision_counts: decisionCounts } : {}), ...data }),
    () => ({ took_ms: tookMs(req), sort, filters }),
    paging,
  );
  // The pooled chunks are reused once the response is written ('finish': every byte handed to the socket); a
  // response closed before that keeps them (the garbage collector takes them).
  reply.raw.once('finish', () => w.release());
  reply.code(200).type('application/json; charset=utf-8');
  return reply.send(Readable.from(refundOnError(body, r.fail), { objectMode: false, highWaterMark: CHUNK_BYTES }));
}
