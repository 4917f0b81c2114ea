// The Windows evaluation index is built once the server listens, in the background, so the first v2 call does
// not pay for it; app.inject (no listening socket) never starts it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { testApp, seedOrg } from '../helpers/app.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';

function capture() {
  const lines: { msg: string; windows_index?: { documents: number; cves: number; built_ms: number } }[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

const ready = (lines: ReturnType<typeof capture>['lines']) =>
  lines.find((l) => l.msg === 'Windows evaluation index ready');

test('listening builds the Windows index in the background; inject alone does not', async () => {
  const log = capture();
  const t = await testApp({ now: '2026-07-10T12:00:00Z', logger: log.logger });
  try {
    const s = await importMsrcDocuments(t.store.db, [FIXTURE_DIR]);
    assert.equal(s.added.length, 9);
    const k = await seedOrg(t.store);
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/health/ping', headers: k.auth });
    assert.equal(r.statusCode, 200);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(ready(log.lines), undefined, 'not built without a listening server');

    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const deadline = Date.now() + 20_000;
    while (!ready(log.lines) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    const w = ready(log.lines)?.windows_index;
    assert.ok(w, 'the index-ready line is logged after listen');
    assert.equal(w.documents, 9);
    assert.ok(w.cves > 100, `the fixture documents name many CVEs (${w.cves})`);
    assert.ok(Number.isInteger(w.built_ms) && w.built_ms >= 0);
  } finally {
    await t.close();
  }
});
