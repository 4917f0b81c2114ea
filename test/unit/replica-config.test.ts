// DATABASE_REPLICA_URL and the replica settings (src/config.ts; docs/operations.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.ts';

test('DATABASE_REPLICA_URL: none by default; one or more, comma-separated, blanks ignored', () => {
  assert.deepEqual(loadConfig({}).replicas, { urls: [], maxLagMs: 10_000, checkMs: 1000 });
  const c = loadConfig({
    DATABASE_REPLICA_URL: ' postgres://a@r1:5432/v , ,postgresql://a@r2/v',
    VULNINTEL_REPLICA_MAX_LAG_MS: '0',
    VULNINTEL_REPLICA_CHECK_MS: '50',
  });
  assert.deepEqual(c.replicas, { urls: ['postgres://a@r1:5432/v', 'postgresql://a@r2/v'], maxLagMs: 0, checkMs: 50 });
});

test('a replica URL that is not PostgreSQL, or settings out of range, stop the start naming the variable', () => {
  assert.throws(
    () => loadConfig({ DATABASE_REPLICA_URL: 'postgres://a@r1/v,http://r2/v' }),
    /DATABASE_REPLICA_URL: protocol must be one of postgres:, postgresql:/,
  );
  assert.throws(() => loadConfig({ DATABASE_REPLICA_URL: 'not a url' }), /DATABASE_REPLICA_URL: not a valid URL/);
  assert.throws(
    () => loadConfig({ VULNINTEL_REPLICA_MAX_LAG_MS: '3600001' }),
    /VULNINTEL_REPLICA_MAX_LAG_MS: must be between 0 and 3600000/,
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_REPLICA_CHECK_MS: '49' }),
    /VULNINTEL_REPLICA_CHECK_MS: must be between 50 and 60000/,
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_REPLICA_CHECK_MS: '1s' }),
    /VULNINTEL_REPLICA_CHECK_MS: expected an integer/,
  );
});
