// The access log (src/http/access-log.ts, docs/operations.md "Logging"): one line per answer with method, path
// without the query string, status and time, bound to the request id; successful liveness pings write none,
// failed ones do; per-request child loggers are made lazily but still carry the request id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { freshDb } from '../helpers/db.ts';
import { TEST_INTERNAL_KEY } from '../helpers/app.ts';

test('one access line per answer, none for a successful ping, one for a refused ping', async () => {
  const db = await freshDb();
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const config = loadConfig({
    DATABASE_URL: db.url,
    VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'info',
  });
  const app = await buildApp({ config, store: db.store, logger: createLogger('info', sink) });
  try {
    await app.ready();
    const access = () => lines.filter((l) => l.msg === 'request completed' || l.msg === 'request errored');

    const ping = await app.inject({ method: 'GET', url: '/api/v1/health/ping' });
    assert.deepEqual(ping.json(), { ping: 'pong' });
    assert.equal(access().length, 0, 'a successful ping writes no access line');

    const list = await app.inject({ method: 'GET', url: '/api/v1/cves?q=secret-term&per_page=5' });
    assert.equal(list.statusCode, 200);
    assert.equal(access().length, 1);
    const line = access()[0];
    assert.equal(line.msg, 'request completed');
    assert.equal(line.level, 30);
    assert.deepEqual(line.req, { method: 'GET', url: '/api/v1/cves', remoteAddress: '127.0.0.1' });
    assert.deepEqual(line.res, { statusCode: 200 });
    assert.equal(typeof line.responseTime, 'number');
    assert.equal(line.request_id, list.headers['x-request-id'], "the line carries the answer's request id");
    assert.ok(!JSON.stringify(lines).includes('secret-term'), 'no query string in the log');

    const refused = await app.inject({ method: 'DELETE', url: '/api/v1/health/ping' });
    assert.equal(refused.statusCode, 405);
    assert.equal(access().length, 2, 'a refused ping is logged');
    assert.deepEqual([access()[1].req.url, access()[1].res.statusCode], ['/api/v1/health/ping', 405]);
    assert.equal(access()[1].request_id, refused.headers['x-request-id']);

    const badQuery = await app.inject({ method: 'GET', url: '/api/v1/health/ping?x=1' });
    assert.equal(badQuery.statusCode, 400);
    assert.equal(access().length, 3, 'a ping answered 400 is logged');

    // A watchlist feed's token (in the path, for feed readers) is logged by its display start only, never the
    // whole credential.
    const token = `vi_feed_${'Ab3'.repeat(14)}`;
    const feed = await app.inject({ method: 'GET', url: `/feeds/watchlist/${token}.atom` });
    assert.equal(feed.statusCode, 404);
    assert.equal(access()[3].req.url, `/feeds/watchlist/${token.slice(0, 14)}…[redacted]`);
    assert.ok(!JSON.stringify(lines).includes(token.slice(0, 20)), 'the token is nowhere in the log');
    await app.inject({ method: 'GET', url: '/feeds/vendor/siemens.atom' });
    assert.equal(access()[4].req.url, '/feeds/vendor/siemens.atom', 'other feed paths are logged as they are');
  } finally {
    await app.close();
    await db.drop();
  }
});
