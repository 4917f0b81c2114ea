// The sealing key's fingerprint (docs/webhooks.md "Sealing key"): the first seal records it; while sealed secrets
// exist, the server, `vulnintel worker` and every CLI command refuse to start with another key, and never generate
// a new key file next to them. An unreadable secret (our fault) never counts toward the five-failure disable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { runCli } from '../helpers/cli.ts';
import { seedOrg } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { loadConfig } from '../../src/config.ts';
import { openRuntime } from '../../src/runtime.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { keyFingerprint } from '../../src/lib/crypto.ts';
import { createWebhookService } from '../../src/services/webhooks.ts';
import { SealingKeyMismatchError } from '../../src/services/sealing-key.ts';
import { WEBHOOK_FAILURE_LIMIT, type AlertPayload } from '../../src/domain/webhooks.ts';

const KEY_A = 'a1'.repeat(32);
const KEY_B = 'b2'.repeat(32);
const log = createLogger('silent');
const root = path.resolve(import.meta.dirname, '../..');

let db: TestDb;
let rx: Receiver;
let tmp: string;

before(async () => {
  db = await freshDb();
  rx = await startReceiver();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'vi-sealing-'));
});
after(async () => {
  await rx.close();
  await db.drop();
  rmSync(tmp, { recursive: true, force: true });
});

const cfg = (env: Record<string, string>) =>
  loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent', VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort, ...env });

/** Opens (and closes) a runtime as the server, the worker and the CLI do; answers the refusal, or null. */
async function start(env: Record<string, string>): Promise<Error | null> {
  try {
    const rt = await openRuntime(cfg(env), log, { statementTimeoutMs: 0 });
    await rt.close();
    return null;
  } catch (e) {
    return e as Error;
  }
}

const emptyDir = (name: string) => {
  const d = path.join(tmp, name);
  mkdirSync(d, { recursive: true });
  return d;
};

test('no sealed secret: any key starts; the first seal records the fingerprint of its key (never the key)', async () => {
  assert.equal(await start({ VULNINTEL_SECRET_KEY: KEY_B }), null);
  assert.equal(await start({ VULNINTEL_SECRET_KEY: KEY_A }), null);
  const org = await seedOrg(db.store, { name: 'Sealed Org' });
  const svc = createWebhookService({
    db: db.store.db,
    clock: fixedClock('2026-11-21T12:00:00Z'),
    config: cfg({ VULNINTEL_SECRET_KEY: KEY_A }),
  });
  await svc.create({ orgId: org.orgId, tier: 'professional' }, { label: 'sealed with A', url: `${rx.base}/ok/a` });
  await svc.close();
  const rows = await db.store.db.selectFrom('sealing_key').selectAll().execute();
  assert.equal(rows.length, 1);
  assert.equal(rows[0].fingerprint, keyFingerprint(Buffer.from(KEY_A, 'hex')));
  assert.ok(!rows[0].fingerprint.includes(KEY_A));
});

test('secrets sealed: the same key starts (from VULNINTEL_SECRET_KEY or a data dir holding it); another key, or none, is refused with a clear message', async () => {
  assert.equal(await start({ VULNINTEL_SECRET_KEY: KEY_A }), null);
  const withKeyFile = emptyDir('data-with-a');
  writeFileSync(path.join(withKeyFile, 'secret.key'), `${KEY_A}\n`, { mode: 0o600 });
  assert.equal(await start({ VULNINTEL_DATA_DIR: withKeyFile }), null);

  const other = await start({ VULNINTEL_SECRET_KEY: KEY_B });
  assert.ok(other instanceof SealingKeyMismatchError, String(other));
  assert.match(
    other.message,
    /^Refusing to start: 1 webhook signing secret is sealed with the key with fingerprint [0-9a-f]{16}…, and this process's key \(VULNINTEL_SECRET_KEY\) has fingerprint [0-9a-f]{16}…/,
  );
  assert.match(
    other.message,
    /set VULNINTEL_SECRET_KEY to it, or VULNINTEL_DATA_DIR to the data directory whose secret.key sealed them/,
  );
  assert.ok(!other.message.includes(KEY_A) && !other.message.includes(KEY_B), 'never a key in the message');

  // The incident: a command run without VULNINTEL_DATA_DIR (an empty ./data) must not generate a key there.
  const empty = emptyDir('data-empty');
  const none = await start({ VULNINTEL_DATA_DIR: empty });
  assert.ok(none instanceof SealingKeyMismatchError, String(none));
  assert.match(
    none.message,
    /this process has no key: .*data-empty\/secret\.key \(absent; VULNINTEL_SECRET_KEY not set\)/,
  );
  assert.equal(existsSync(path.join(empty, 'secret.key')), false, 'no key file generated');
});

test('the CLI, `vulnintel worker` and `vulnintel serve` refuse to start with another key: exit 1, the message on stderr, no key file written', async () => {
  const empty = emptyDir('data-cli');
  for (const args of [['migrate'], ['key', 'list', '--org', '1'], ['worker']]) {
    const r = await runCli(args, { DATABASE_URL: db.url, VULNINTEL_DATA_DIR: empty });
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /Refusing to start: 1 webhook signing secret is sealed with the key with fingerprint/,
      args.join(' '),
    );
  }
  const serve = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'cli.ts'), 'serve'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      VULNINTEL_SECRET_KEY: KEY_B,
      PORT: '0',
      VULNINTEL_AUTO_IMPORT: 'false',
    },
  });
  assert.equal(serve.status, 1, serve.stderr);
  assert.match(serve.stderr, /Refusing to start: 1 webhook signing secret is sealed/);
  assert.equal(existsSync(path.join(empty, 'secret.key')), false, 'no key file generated');
});

test('secrets sealed before fingerprints were recorded: the key that opens them is recorded, another is refused', async () => {
  await db.store.db.deleteFrom('sealing_key').execute();
  const other = await start({ VULNINTEL_SECRET_KEY: KEY_B });
  assert.ok(other instanceof SealingKeyMismatchError);
  assert.match(other.message, /sealed with a key whose fingerprint was not recorded/);
  assert.equal((await db.store.db.selectFrom('sealing_key').selectAll().execute()).length, 0);
  assert.equal(await start({ VULNINTEL_SECRET_KEY: KEY_A }), null);
  const rows = await db.store.db.selectFrom('sealing_key').selectAll().execute();
  assert.equal(rows[0]?.fingerprint, keyFingerprint(Buffer.from(KEY_A, 'hex')));
});

test('an unreadable secret is our fault: recorded secret_unreadable, never counted, the webhook stays enabled past five', async () => {
  const org = await seedOrg(db.store, { name: 'Unreadable Org' });
  const clock = fixedClock('2026-11-21T12:00:00Z');
  const own = createWebhookService({ db: db.store.db, clock, config: cfg({ VULNINTEL_SECRET_KEY: KEY_A }) });
  const h = await own.create(
    { orgId: org.orgId, tier: 'professional' },
    { label: 'sealed with A', url: `${rx.base}/ok/unreadable` },
  );
  await own.close();
  // A process with another key (before the start check existed, or a service built with it directly).
  const foreign = createWebhookService({ db: db.store.db, clock, config: cfg({ VULNINTEL_SECRET_KEY: KEY_B }) });
  const sent = rx.received.length;
  for (let i = 0; i < WEBHOOK_FAILURE_LIMIT + 2; i++) {
    const [r] = await foreign.deliverAlert(org.orgId, alert(`CVE-2026-${4100 + i}`));
    assert.equal(r.outcome, 'failed');
    assert.match(r.error ?? '', /^secret_unreadable: /);
    assert.equal(r.disabled, false);
  }
  await foreign.close();
  assert.equal(rx.received.length, sent, 'nothing sent');
  const row = await db.store.db
    .selectFrom('webhooks')
    .select(['enabled', 'consecutive_failures', 'disabled_reason'])
    .where('id', '=', h.webhook.id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { enabled: true, consecutive_failures: 0, disabled_reason: null });
  const failed = await db.store.db
    .selectFrom('webhook_deliveries')
    .select('error')
    .where('webhook_id', '=', h.webhook.id)
    .execute();
  assert.equal(failed.length, WEBHOOK_FAILURE_LIMIT + 2);
  // A receiver failure still counts (the rule itself is unchanged): the same webhook, its key readable, a 500.
  await db.store.db
    .updateTable('webhooks')
    .set({ url: `${rx.base}/error/x` })
    .where('id', '=', h.webhook.id)
    .execute();
  const again = createWebhookService({ db: db.store.db, clock, config: cfg({ VULNINTEL_SECRET_KEY: KEY_A }) });
  const [r] = await again.deliverAlert(org.orgId, alert('CVE-2026-4200'));
  await again.close();
  assert.equal(r.outcome, 'failed');
  assert.equal(
    (
      await db.store.db
        .selectFrom('webhooks')
        .select('consecutive_failures')
        .where('id', '=', h.webhook.id)
        .executeTakeFirstOrThrow()
    ).consecutive_failures,
    1,
  );
});

test('no sealed secret left: a stale fingerprint gives way to the new key', async () => {
  await db.store.db.deleteFrom('webhook_deliveries').execute();
  await db.store.db.deleteFrom('webhooks').execute();
  assert.equal(await start({ VULNINTEL_SECRET_KEY: KEY_B }), null);
  const rows = await db.store.db.selectFrom('sealing_key').selectAll().execute();
  assert.equal(rows[0]?.fingerprint, keyFingerprint(Buffer.from(KEY_B, 'hex')));
});

function alert(id: string): AlertPayload {
  return {
    event: 'cve.alert',
    version: '1.0',
    timestamp: '2026-11-21T12:00:00Z',
    data: {
      cve_id: id,
      title: 'A title',
      cvss_score: 9.8,
      cvss_vector: null,
      patch_status: 'unknown',
      kev_flagged: false,
      epss_score: null,
      sage_priority: 'PATCH NOW',
      published_at: null,
      url: `https://vulnintel.test/cve/${id}`,
      executive_summary: null,
      mitigation: null,
      causal_boundary: null,
      virtual_patch: null,
      watchlist_match: { entity_type: 'vendor', entity_name: 'Siemens' },
      reason: 'added to KEV',
    },
  };
}
