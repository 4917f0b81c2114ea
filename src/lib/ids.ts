import { randomBytes } from 'node:crypto';

// Random bytes are drawn 6 KiB at a time and written out as hex once: one `randomBytes(6)` per request cost about
// 4 % of a ping's CPU (a synchronous call into OpenSSL each time), and a hex conversion of 6 bytes per request, a
// call into C++ too, cost more than taking 12 characters of a hex text (docs/benchmarks.md "Per-request overhead").
// The ids stay unpredictable (CSPRNG bytes, each used once).
const BATCH = 1024;
let pool = '';
let at = 0;

/** Request id of the spec's form `<prefix>-req-<id>` (spec §2.1): `vi-req-` + 12 hex. */
export function newRequestId(): string {
  if (at >= pool.length) {
    pool = randomBytes(6 * BATCH).toString('hex');
    at = 0;
  }
  const id = `vi-req-${pool.slice(at, at + 12)}`;
  at += 12;
  return id;
}
export const REQUEST_ID_RE = /^vi-req-[0-9a-f]{12}$/;
