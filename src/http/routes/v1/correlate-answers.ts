// The streamed answer of correlate-cves and of the stored assets' results (GET /api/v1/assets/results).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiBlock } from '../../envelope.ts';
import { AnswerWriter, CHUNK_BYTES, correlateBody, refundOnError } from '../../views/correlate-json.ts';
import type { CorrelateAnswers } from '../../../services/asset-correlation.ts';
import type { CorrelateOptions } from '../../../services/correlation-answer.ts';
import { noDecisionCounts, type DecisionCounts } from '../../../services/correlation-decisions.ts';

/** Every count of both (a literal of the type: a count added to DecisionCounts must be added here). */
const addDecisions = (x: DecisionCounts, y: DecisionCounts): DecisionCounts => ({
  open: x.open + y.open,
  undecided: x.undecided + y.undecided,
  under_investigation: x.under_investigation + y.under_investigation,
  affected: x.affected + y.affected,
  not_affected: x.not_affected + y.not_affected,
  fixed: x.fixed + y.fixed,
  review_again: x.review_again + y.review_again,
});

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
  let counts = { affected: 0, not_affected: 0, needs_review: 0 };
  let decisionCounts = r.decided ? noDecisionCounts() : null;
  const { sort, ...filters } = options;
  const w = new AnswerWriter();
  const answer = (i: number) => {
    const a = r.answer(i);
    counts = {
      affected: counts.affected + a.counts.affected,
      not_affected: counts.not_affected + a.counts.not_affected,
      needs_review: counts.needs_review + a.counts.needs_review,
    };
    if (decisionCounts && a.decisions) decisionCounts = addDecisions(decisionCounts, a.decisions.counts);
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
