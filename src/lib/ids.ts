import { randomBytes } from 'node:crypto';

/** Request id of the spec's form `<prefix>-req-<id>` (spec §2.1): `vi-req-` + 12 hex. */
export function newRequestId(): string {
  return `vi-req-${randomBytes(6).toString('hex')}`;
}
export const REQUEST_ID_RE = /^vi-req-[0-9a-f]{12}$/;
