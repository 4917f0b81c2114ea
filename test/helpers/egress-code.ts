// The EgressError code a synchronous policy check throws, or 'accepted': for table tests of URL policies.
import assert from 'node:assert/strict';
import { EgressError } from '../../src/lib/egress-policy.ts';

export function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof EgressError, `expected EgressError, got ${e}`);
    return e.code;
  }
  return 'accepted';
}
