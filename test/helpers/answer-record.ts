// Records every answer a test app gives through `app.inject`, when VULNINTEL_RECORD_ANSWERS names a directory: one
// JSON line per request (method, URL, body sent; status, the headers a client reads, the body), with what differs
// from run to run by design written as placeholders (request ids, times, durations, random ids, generated secrets),
// and property tests seeded alike. Two recordings of the
// same tests, before and after a change meant to move code only, are compared by tools/answers-compare.ts: any
// answer that differs is a change of behaviour.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';

const HEADERS = [
  'content-type',
  'content-encoding',
  'cache-control',
  'location',
  'retry-after',
  'allow',
  'www-authenticate',
  'content-disposition',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'deprecation',
  'sunset',
];

/** Run-to-run values written as placeholders: request ids, instants, durations, secrets and random tokens. */
export function normalizeAnswer(text: string): string {
  return (
    text
      .replace(/vi-req-[0-9a-f]{12}/g, '<request-id>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<instant>')
      .replace(/"(processing_ms|took_ms|duration_ms|elapsed_ms|query_ms)":\d+(\.\d+)?/g, '"$1":<ms>')
      .replace(/\b\d{12,}\b/g, '<id>')
      .replace(/\b(vi_[a-z]+_|vift_)[A-Za-z0-9_+/=<>-]{16,}/g, '$1<secret>')
      .replace(/\bwhsec_[A-Za-z0-9_+/=<>-]+/g, 'whsec_<secret>')
      .replace(/\b(vi_[a-z]+_)[A-Za-z0-9]{6}…/g, '$1<start>…')
      // Names the test helpers make unique with six random characters (an organization, a member's address).
      .replace(/(-|\b[A-Z] )(?=[a-z]*\d)[a-z0-9]{6}(@example\.test|\b)/g, '$1<random>$2')
      .replace(/"retry_after(_seconds)?":\d+/g, '"retry_after$1":<n>')
      .replace(/\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/g, '<minute>')
      .replace(/"(key_start|token_start|secret_start)":"(vi_[a-z]+_|whsec_|vift_)?[A-Za-z0-9_-]+"/g, '"$1":"$2<start>"')
      .replace(/\b[0-9a-f]{32,}\b/g, '<hex>')
      .replace(/\b[A-Za-z0-9_-]{40,}\b/g, '<token>')
  );
}

function bodyText(res: LightMyRequestResponse): string {
  const type = String(res.headers['content-type'] ?? '');
  if (/^(application\/(json|problem\+json|xml|atom\+xml)|text\/)/.test(type) && !res.headers['content-encoding'])
    return normalizeAnswer(res.body);
  return `<${res.rawPayload.length} bytes>`;
}

function requestBody(o: InjectOptions): string | null {
  const p = o.payload ?? o.body;
  if (p === undefined) return null;
  if (typeof p === 'string') return normalizeAnswer(p);
  if (Buffer.isBuffer(p)) return `<${p.length} bytes>`;
  return normalizeAnswer(JSON.stringify(p));
}

const RECORDING = Boolean(process.env.VULNINTEL_RECORD_ANSWERS);
if (RECORDING) {
  // Both recordings draw the same test data: property tests' inputs, and the names and addresses tests make up with
  // Math.random (mulberry32 from a fixed seed).
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261207 });
  let state = 20261207;
  Math.random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Wraps app.inject to record its answers (no-op unless VULNINTEL_RECORD_ANSWERS is set). */
export function recordAnswers(app: FastifyInstance): void {
  const dir = process.env.VULNINTEL_RECORD_ANSWERS;
  if (!RECORDING || !dir) return;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${path.basename(process.argv[1] ?? 'unknown')}.jsonl`);
  const inject = app.inject.bind(app);
  const wrapped = async (o: InjectOptions | string) => {
    const opts: InjectOptions = typeof o === 'string' ? { url: o } : o;
    const res = await inject(opts);
    const headers = Object.fromEntries(
      HEADERS.flatMap((h) => (h in res.headers ? [[h, normalizeAnswer(String(res.headers[h]))]] : [])),
    );
    const line = {
      request: `${opts.method ?? 'GET'} ${normalizeAnswer(String(opts.url ?? opts.path ?? ''))}`,
      sent: requestBody(opts),
      status: res.statusCode,
      headers,
      body: bodyText(res),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    return res;
  };
  Object.defineProperty(app, 'inject', {
    value: (o?: InjectOptions | string) => (o === undefined ? inject() : wrapped(o)),
  });
}
