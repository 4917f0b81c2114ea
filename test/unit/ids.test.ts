// Request ids (spec §2.1): drawn from a batch of random bytes refilled every 1,024 ids; the form and the
// uniqueness hold across refills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRequestId, REQUEST_ID_RE } from '../../src/lib/ids.ts';

test('request ids keep their form and never repeat across batch refills', () => {
  const ids = Array.from({ length: 5000 }, () => newRequestId());
  for (const id of ids) assert.match(id, REQUEST_ID_RE);
  assert.equal(new Set(ids).size, ids.length);
});
