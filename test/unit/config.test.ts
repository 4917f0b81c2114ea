import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config.ts';

test('defaults: PORT 8080, HOST 127.0.0.1, ./data, no database URL, no internal key', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.databaseUrl, null);
  assert.equal(c.dataDir, path.resolve('./data'));
  assert.equal(c.internalKey, null);
  assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
  assert.equal(c.uptimeUrl, 'http://127.0.0.1:8080/api/v1/health');
  assert.ok(Object.isFrozen(c));
});

test('every invalid value fails with a message naming the variable', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ VULNINTEL_INTERNAL_KEY: 'short' }, 'VULNINTEL_INTERNAL_KEY'],
    [{ VULNINTEL_PUBLIC_URL: 'ftp://x' }, 'VULNINTEL_PUBLIC_URL'],
    [{ VULNINTEL_UPTIME_URL: 'nope' }, 'VULNINTEL_UPTIME_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ VULNINTEL_AUTO_IMPORT: 'maybe' }, 'VULNINTEL_AUTO_IMPORT'],
    [{ DATABASE_URL: 'postgres://a', DATABASE_URL_FILE: '/x' }, 'DATABASE_URL'],
    [{ VULNINTEL_INTERNAL_KEY_FILE: '/no/such/file' }, 'VULNINTEL_INTERNAL_KEY_FILE'],
  ];
  for (const [env, name] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) =>
        e instanceof ConfigError && e.variable === name && e.message.startsWith(`Invalid configuration: ${name}: `),
      JSON.stringify(env),
    );
  }
});

test('secrets can come from *_FILE', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-cfg-'));
  writeFileSync(path.join(dir, 'k'), 'internal-key-from-a-file\n');
  assert.equal(
    loadConfig({ VULNINTEL_INTERNAL_KEY_FILE: path.join(dir, 'k') }).internalKey,
    'internal-key-from-a-file',
  );
});

test('the server refuses to start on invalid config, naming the variable (exit 2)', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/vulnintel.js', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [bin, 'serve'], { env: { ...process.env, PORT: 'abc' }, encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /Invalid configuration: PORT: expected an integer, got "abc"/);
});
