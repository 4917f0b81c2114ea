// Production over plain http (docs/operations.md "Production over http"): with VULNINTEL_ENV=production and a public
// URL that is not https, the session cookies cannot be Secure. The server warns at start (log) and the status page
// says so; https, or another environment, gives neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { testApp } from '../helpers/app.ts';

async function started(env: Record<string, string>) {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    }),
  );
  const t = await testApp({ env, logger });
  try {
    const page = await t.app.inject({ method: 'GET', url: '/api/v1/health', headers: { accept: 'text/html' } });
    const json = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    return {
      warns: lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40),
      page: page.body,
      status: page.statusCode,
      json: json.json(),
    };
  } finally {
    await t.close();
  }
}

test('production with an http public URL: a warning at start and on the status page', async () => {
  const r = await started({ VULNINTEL_ENV: 'production', VULNINTEL_PUBLIC_URL: 'http://vulnintel.example.com' });
  const w = r.warns.find((l) => /not https/.test(l.msg));
  assert.ok(w, JSON.stringify(r.warns));
  assert.match(
    w.msg,
    /VULNINTEL_PUBLIC_URL \(http:\/\/vulnintel\.example\.com\) is not https: session cookies cannot be Secure/,
  );
  assert.equal(r.status, 200);
  assert.match(
    r.page,
    /<div class="warning" role="alert">[^<]*VULNINTEL_PUBLIC_URL \(http:\/\/vulnintel\.example\.com\) is not https/,
  );
});

test('production over https, or http outside production: no warning', async () => {
  for (const env of [
    { VULNINTEL_ENV: 'production', VULNINTEL_PUBLIC_URL: 'https://vulnintel.example.com' },
    { VULNINTEL_ENV: 'development', VULNINTEL_PUBLIC_URL: 'http://localhost:8080' },
  ]) {
    const r = await started(env);
    assert.equal(r.warns.filter((l) => /not https/.test(l.msg)).length, 0, JSON.stringify(env));
    assert.doesNotMatch(r.page, /class="warning"/);
  }
});
