// Operator CLI against a real database: org create, key create (standard, partner, trial; tier policy), key
// list, key revoke (by id, by prefix, idempotent), and the keys working (or not) over HTTP afterwards. Two
// organizations never see each other's keys through the CLI.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testApp, type TestApp } from '../helpers/app.ts';
import { runCli } from '../../src/cli.ts';
import { isWellFormedApiKey } from '../../src/lib/crypto.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ now: new Date().toISOString() });
  process.env.DATABASE_URL = t.db.url;
  process.env.LOG_LEVEL = 'silent';
});
after(async () => {
  await t.close();
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  const stdout = out.join('\n');
  return { code, stdout, stderr: err.join('\n'), json: () => JSON.parse(stdout) };
}

const me = (key: string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: { authorization: `Bearer ${key}` } });

describe('org create', () => {
  test("Professional: prints the org id and the owner's first key once; the key works", async () => {
    const r = await cli(
      'org',
      'create',
      '--name',
      'Acme Water',
      '--tier',
      'professional',
      '--owner-email',
      'Boss@Acme.test',
      '--json',
    );
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.equal(j.org.name, 'Acme Water');
    assert.equal(j.org.tier, 'professional');
    assert.deepEqual(j.owner, { id: j.owner.id, email: 'boss@acme.test', role: 'owner' });
    assert.ok(isWellFormedApiKey(j.api_key.key));
    assert.equal(j.api_key.key_start, j.api_key.key.slice(0, 14));
    assert.deepEqual(j.api_key.scopes, ['read', 'write']);
    assert.equal(j.api_key.kind, 'standard');
    const p = await me(j.api_key.key);
    assert.equal(p.statusCode, 200);
    assert.equal(p.json().data.org_id, j.org.id);
    assert.equal(p.json().data.email, 'boss@acme.test');
    // Stored as hash only: the secret part of the key appears in no text column of any table.
    const secret = j.api_key.key.slice(14);
    const cols = await t.store.pool.query(`SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'ARRAY')`);
    assert.ok(cols.rowCount! > 10);
    for (const c of cols.rows) {
      const hit = await t.store.pool.query(
        `SELECT 1 FROM "${c.table_name}" WHERE "${c.column_name}"::text LIKE $1 LIMIT 1`,
        [`%${secret}%`],
      );
      assert.equal(hit.rowCount, 0, `${c.table_name}.${c.column_name} holds the key`);
    }
  });

  test('text output names the org and shows the key once', async () => {
    const r = await cli('org', 'create', '--name', 'Text Org', '--tier', 'enterprise', '--owner-email', 'o@text.test');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Organization \d+ "Text Org" \(enterprise\) created; owner o@text\.test/);
    assert.equal(r.stdout.match(/vi_live_\w+/g)!.length, 1);
  });

  test('Free: the org and owner are created without a key (API keys need Professional)', async () => {
    const r = await cli('org', 'create', '--name', 'Tiny', '--tier', 'free', '--owner-email', 'a@tiny.test', '--json');
    assert.equal(r.code, 0);
    assert.equal(r.json().api_key, null);
    assert.match(r.json().note, /Professional/);
  });

  test('invalid input is a usage error (exit 2) naming the option', async () => {
    const r1 = await cli('org', 'create', '--name', 'X', '--tier', 'gold', '--owner-email', 'x@y.test');
    assert.equal(r1.code, 2);
    assert.match(r1.stderr, /--tier must be one of free, standard, professional, api, enterprise/);
    const r2 = await cli('org', 'create', '--name', 'X', '--tier', 'free', '--owner-email', 'nope');
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /--owner-email is not an email address/);
    const r3 = await cli('org', 'create', '--tier', 'free', '--owner-email', 'x@y.test');
    assert.match(r3.stderr, /--name is required/);
  });
});

describe('key create', () => {
  test('a new member is created with the role; the key inherits it; an existing member keeps its role', async () => {
    const org = (
      await cli(
        'org',
        'create',
        '--name',
        'Roles',
        '--tier',
        'professional',
        '--owner-email',
        'own@roles.test',
        '--json',
      )
    ).json().org;
    const r = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'view@roles.test',
      '--role',
      'viewer',
      '--scopes',
      'read',
      '--json',
    );
    assert.equal(r.code, 0, r.stderr);
    const j = r.json();
    assert.deepEqual(j.member, { id: j.member.id, email: 'view@roles.test', role: 'viewer', created: true });
    assert.deepEqual(j.api_key.scopes, ['read']);
    assert.equal((await me(j.api_key.key)).json().data.email, 'view@roles.test');

    const again = await cli('key', 'create', '--org', String(org.id), '--email', 'view@roles.test', '--json');
    assert.equal(again.json().member.created, false);
    assert.equal(again.json().member.role, 'viewer');

    const mismatch = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'view@roles.test',
      '--role',
      'admin',
      '--json',
    );
    assert.equal(mismatch.code, 1);
    assert.equal(mismatch.json().error.code, 'role_mismatch');
    const noRole = await cli('key', 'create', '--org', String(org.id), '--email', 'new@roles.test', '--json');
    assert.equal(noRole.json().error.code, 'role_required');
    const owner = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'new@roles.test',
      '--role',
      'owner',
      '--json',
    );
    assert.equal(owner.json().error.code, 'owner_exists');
  });

  test('--label: empty or spaces only, or over 200 characters, is refused before anything is stored; a label is stored trimmed', async () => {
    const org = (
      await cli(
        'org',
        'create',
        '--name',
        'Labels',
        '--tier',
        'professional',
        '--owner-email',
        'o@labels.test',
        '--json',
      )
    ).json().org;
    const count = async () =>
      (await t.store.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [org.id])).rows[0]
        .n as number;
    const before = await count();
    for (const [label, message] of [
      ['', '--label must not be empty or only spaces'],
      ['   ', '--label must not be empty or only spaces'],
      ['x'.repeat(201), '--label must be at most 200 characters'],
      [
        'SIEM \u202Etropxe',
        '--label must not hold control characters \\(line breaks and tabs included\\), bidirectional controls',
      ],
      ['SIEM\nexport', '--label must not hold control characters'],
    ]) {
      const r = await cli('key', 'create', '--org', String(org.id), '--email', 'o@labels.test', '--label', label);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(message));
    }
    assert.equal(await count(), before);
    const ok = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'o@labels.test',
      '--label',
      '  Historian  ',
      '--json',
    );
    assert.equal(ok.code, 0, ok.stderr);
    const listed = (await cli('key', 'list', '--org', String(org.id), '--json')).json().keys as {
      id: number;
      label: string | null;
    }[];
    assert.equal(listed.find((k) => k.id === ok.json().api_key.id)!.label, 'Historian');
  });

  test('tiers below Professional are refused a standard key: upgrade_required, like the API', async () => {
    const org = (
      await cli('org', 'create', '--name', 'Std', '--tier', 'standard', '--owner-email', 'o@std.test', '--json')
    ).json().org;
    const r = await cli('key', 'create', '--org', String(org.id), '--email', 'o@std.test', '--json');
    assert.equal(r.code, 1);
    assert.equal(r.json().error.code, 'upgrade_required');
    const text = await cli('key', 'create', '--org', String(org.id), '--email', 'o@std.test');
    assert.match(text.stderr, /^Refused \(upgrade_required\): API keys are available on the Professional tier/);
    // The operator's path is to change the tier.
    assert.equal((await cli('org', 'set-tier', '--org', String(org.id), '--tier', 'professional')).code, 0);
    assert.equal((await cli('key', 'create', '--org', String(org.id), '--email', 'o@std.test', '--json')).code, 0);
  });

  test('partner keys are read-only', async () => {
    const org = (
      await cli('org', 'create', '--name', 'Partner', '--tier', 'standard', '--owner-email', 'o@p.test', '--json')
    ).json().org;
    const r = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'bot@p.test',
      '--role',
      'admin',
      '--kind',
      'partner',
      '--json',
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(r.json().api_key.scopes, ['read']);
    assert.equal(r.json().api_key.expires_at, null);
    const w = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'bot@p.test',
      '--kind',
      'partner',
      '--scopes',
      'read,write',
      '--json',
    );
    assert.equal(w.json().error.code, 'scope_not_allowed');
    // Outside its scope over HTTP.
    assert.equal((await me(r.json().api_key.key)).json().error.code, 'PARTNER_SCOPE');
  });

  test('a partner key is refused for a viewer member (its key could not correlate); for an admin it is issued', async () => {
    const org = (
      await cli(
        'org',
        'create',
        '--name',
        'PartnerViewer',
        '--tier',
        'professional',
        '--owner-email',
        'o@pv.test',
        '--json',
      )
    ).json().org;
    const count = async () =>
      (await t.store.pool.query('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [org.id])).rows[0]
        .n as number;
    const before = await count();
    const r = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'viewer@pv.test',
      '--role',
      'viewer',
      '--kind',
      'partner',
      '--json',
    );
    assert.equal(r.code, 1);
    assert.equal(r.json().error.code, 'viewer_partner_key');
    assert.match(r.json().error.message, /viewer@pv\.test is a viewer; .*cannot correlate assets/);
    assert.equal(await count(), before, 'no key stored');
    // Nothing half-stored: the viewer member was not created either.
    assert.equal(
      (
        await t.store.pool.query('SELECT count(*)::int AS n FROM members WHERE org_id = $1 AND email = $2', [
          org.id,
          'viewer@pv.test',
        ])
      ).rows[0].n,
      0,
    );
    const text = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'viewer@pv.test',
      '--role',
      'viewer',
      '--kind',
      'partner',
    );
    assert.match(text.stderr, /^Refused \(viewer_partner_key\): /);
    // A viewer still gets a standard key; an admin a partner key.
    assert.equal(
      (
        await cli(
          'key',
          'create',
          '--org',
          String(org.id),
          '--email',
          'viewer@pv.test',
          '--role',
          'viewer',
          '--scopes',
          'read',
          '--json',
        )
      ).code,
      0,
    );
    assert.equal(
      (
        await cli('key', 'create', '--org', String(org.id), '--email', 'viewer@pv.test', '--kind', 'partner', '--json')
      ).json().error.code,
      'viewer_partner_key',
    );
    assert.equal(
      (
        await cli(
          'key',
          'create',
          '--org',
          String(org.id),
          '--email',
          'bot@pv.test',
          '--role',
          'admin',
          '--kind',
          'partner',
          '--json',
        )
      ).code,
      0,
    );
  });

  test('trial keys only for Free organizations, as POST /account/trial: other tiers are refused trial_unavailable', async () => {
    for (const tier of ['standard', 'professional', 'api', 'enterprise']) {
      const org = (
        await cli(
          'org',
          'create',
          '--name',
          `Trial ${tier}`,
          '--tier',
          tier,
          '--owner-email',
          `o@trial-${tier}.test`,
          '--json',
        )
      ).json().org;
      const r = await cli(
        'key',
        'create',
        '--org',
        String(org.id),
        '--email',
        `o@trial-${tier}.test`,
        '--kind',
        'trial',
        '--json',
      );
      assert.equal(r.code, 1, tier);
      assert.equal(r.json().error.code, 'trial_unavailable', tier);
      assert.equal(
        await t.store.db.selectFrom('trial_usage').select('org_id').where('org_id', '=', org.id).executeTakeFirst(),
        undefined,
        `${tier}: no trial started`,
      );
    }
  });

  test('trial end: the trial keys answer 403 TRIAL_ENDED reason ended from the next request; idempotent; no new trial key', async () => {
    const org = (
      await cli('org', 'create', '--name', 'TrialEnd', '--tier', 'free', '--owner-email', 'o@trialend.test', '--json')
    ).json().org;
    const none = await cli('trial', 'end', '--org', String(org.id), '--json');
    assert.equal(none.code, 1);
    assert.equal(none.json().error.code, 'trial_not_started');
    const key = (
      await cli('key', 'create', '--org', String(org.id), '--email', 'o@trialend.test', '--kind', 'trial', '--json')
    ).json().api_key.key as string;
    // Before: the key is accepted, and /account/me is outside a trial key's calls.
    assert.equal((await me(key)).json().error.code, 'TRIAL_SCOPE');
    const ended = await cli('trial', 'end', '--org', String(org.id), '--json');
    assert.equal(ended.code, 0, ended.stdout + ended.stderr);
    const j = ended.json();
    assert.equal(j.already_ended, false);
    assert.deepEqual([j.trial.status, j.trial.reason, j.trial.remaining], ['ended', 'ended', 0]);
    const refused = await me(key);
    assert.equal(refused.statusCode, 403);
    const err = refused.json().error;
    assert.deepEqual(
      [err.code, err.detail.reason, err.detail.contact_url],
      ['TRIAL_ENDED', 'ended', 'mailto:support@vulnintel.local'],
    );
    const stored = await t.store.db
      .selectFrom('trial_usage')
      .select('ended_at')
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    const again = await cli('trial', 'end', '--org', String(org.id));
    assert.equal(again.code, 0);
    assert.match(again.stdout, /had already ended \(reason ended\); nothing changed/);
    const after = await t.store.db
      .selectFrom('trial_usage')
      .select('ended_at')
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(after.ended_at, stored.ended_at, 'the first end time is kept');
    assert.equal(
      (
        await cli('key', 'create', '--org', String(org.id), '--email', 'o@trialend.test', '--kind', 'trial', '--json')
      ).json().error.code,
      'trial_ended',
    );
    assert.equal((await cli('trial', 'end', '--org', '999999', '--json')).json().error.code, 'org_not_found');
  });

  test('trial keys: one 14-day trial per organization, 750 checks counted in trial_usage', async () => {
    const org = (
      await cli('org', 'create', '--name', 'Trial', '--tier', 'free', '--owner-email', 'o@trial.test', '--json')
    ).json().org;
    const before = Date.now();
    const r = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'o@trial.test',
      '--kind',
      'trial',
      '--json',
    );
    assert.equal(r.code, 0, r.stdout);
    const exp = Date.parse(r.json().api_key.expires_at);
    assert.ok(exp >= before + 14 * 86_400_000 && exp <= Date.now() + 14 * 86_400_000, r.json().api_key.expires_at);
    const usage = await t.store.db
      .selectFrom('trial_usage')
      .selectAll()
      .where('org_id', '=', org.id)
      .executeTakeFirstOrThrow();
    assert.equal(usage.used, 0);
    assert.equal(usage.ended_at, null);
    const second = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'o@trial.test',
      '--kind',
      'trial',
      '--json',
    );
    assert.equal(second.json().api_key.expires_at, r.json().api_key.expires_at, 'a second key never extends the trial');
    await t.store.db.updateTable('trial_usage').set({ used: 750 }).where('org_id', '=', org.id).execute();
    const spent = await cli(
      'key',
      'create',
      '--org',
      String(org.id),
      '--email',
      'o@trial.test',
      '--kind',
      'trial',
      '--json',
    );
    assert.equal(spent.json().error.code, 'trial_ended');
  });

  test('unknown organization', async () => {
    const r = await cli('key', 'create', '--org', '999999', '--email', 'x@y.test', '--role', 'admin', '--json');
    assert.equal(r.code, 1);
    assert.equal(r.json().error.code, 'org_not_found');
  });
});

describe('key list and key revoke', () => {
  test('revoke by id is idempotent and takes effect on the next request', async () => {
    const j = (
      await cli('org', 'create', '--name', 'Rev', '--tier', 'professional', '--owner-email', 'o@rev.test', '--json')
    ).json();
    assert.equal((await me(j.api_key.key)).statusCode, 200);
    const r1 = await cli('key', 'revoke', '--org', String(j.org.id), '--key', String(j.api_key.id), '--json');
    assert.equal(r1.code, 0);
    const r2 = await cli('key', 'revoke', '--org', String(j.org.id), '--key', String(j.api_key.id), '--json');
    assert.equal(r2.code, 0);
    assert.equal(r2.json().api_key.revoked_at, r1.json().api_key.revoked_at);
    const after = await me(j.api_key.key);
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error.message, 'API key revoked');
  });

  test('revoke by display prefix or by the whole key', async () => {
    const j = (
      await cli(
        'org',
        'create',
        '--name',
        'Prefix',
        '--tier',
        'professional',
        '--owner-email',
        'o@prefix.test',
        '--json',
      )
    ).json();
    const r = await cli('key', 'revoke', '--org', String(j.org.id), '--key', j.api_key.key_start);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`API key ${j.api_key.id} \\(${j.api_key.key_start}…\\) revoked at `));
    const k2 = (await cli('key', 'create', '--org', String(j.org.id), '--email', 'o@prefix.test', '--json')).json()
      .api_key;
    assert.equal(
      (await cli('key', 'revoke', '--org', String(j.org.id), '--key', k2.key, '--json')).json().api_key.id,
      k2.id,
    );
    for (const bad of ['vi_live_', `${k2.key_start}x`]) {
      const r2 = await cli('key', 'revoke', '--org', String(j.org.id), '--key', bad, '--json');
      assert.equal(r2.json().error.code, 'key_not_found', bad);
    }
  });

  test("two organizations: list and revoke never reach the other organization's keys", async () => {
    const a = (
      await cli('org', 'create', '--name', 'CLI A', '--tier', 'professional', '--owner-email', 'o@a.test', '--json')
    ).json();
    const b = (
      await cli('org', 'create', '--name', 'CLI B', '--tier', 'professional', '--owner-email', 'o@b.test', '--json')
    ).json();
    const la = (await cli('key', 'list', '--org', String(a.org.id), '--json')).json();
    assert.deepEqual(
      la.keys.map((k: { id: number }) => k.id),
      [a.api_key.id],
    );
    assert.equal(la.keys[0].member.email, 'o@a.test');
    assert.equal(la.keys[0].key, undefined, 'the list never shows the key');
    assert.doesNotMatch(JSON.stringify(la), /o@b\.test|CLI B/);
    // B's key id and prefix through org A: not found, and B's key still works.
    for (const ref of [String(b.api_key.id), b.api_key.key_start, b.api_key.key]) {
      const r = await cli('key', 'revoke', '--org', String(a.org.id), '--key', ref, '--json');
      assert.equal(r.code, 1);
      assert.equal(r.json().error.code, 'key_not_found');
    }
    assert.equal((await me(b.api_key.key)).statusCode, 200);
  });

  test('the bin wrapper runs the same CLI (spawned)', () => {
    const bin = fileURLToPath(new URL('../../bin/vulnintel.js', import.meta.url));
    const r = spawnSync(process.execPath, [bin, 'key', 'list', '--org', '999999', '--json'], {
      env: { ...process.env },
      encoding: 'utf8',
    });
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), {
      error: { code: 'org_not_found', message: 'No organization with id 999999' },
    });
  });
});

describe('login-link and org set-provider (accounts)', () => {
  test('login-link prints a working single-use sign-in link; an unknown address is refused with exit 1', async () => {
    const created = await cli(
      'org',
      'create',
      '--name',
      'Link CLI Org',
      '--tier',
      'standard',
      '--owner-email',
      'cli.person@example.test',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const r = await cli('login-link', '--email', 'CLI.Person@example.test');
    assert.equal(r.code, 0, r.stderr);
    const link = new URL(r.stdout.trim());
    assert.equal(link.pathname, '/api/v1/auth/callback');
    const res = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode, 401);
    const unknown = await cli('login-link', '--email', 'nobody.cli@example.test');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /person_not_found/);
    assert.equal((await cli('login-link', '--email', 'not-an-address')).code, 2);
  });

  test('org set-provider makes an organization a client of a provider', async () => {
    const p = (
      await cli(
        'org',
        'create',
        '--name',
        'CLI MSP',
        '--tier',
        'professional',
        '--owner-email',
        'msp@example.test',
        '--json',
      )
    ).json();
    const c = (
      await cli(
        'org',
        'create',
        '--name',
        'CLI Client',
        '--tier',
        'standard',
        '--owner-email',
        'client@example.test',
        '--json',
      )
    ).json();
    const r = await cli('org', 'set-provider', '--org', String(c.org.id), '--provider', String(p.org.id), '--json');
    assert.equal(r.code, 0, r.stderr);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/account/clients',
      headers: { authorization: `Bearer ${p.api_key.key}` },
    });
    assert.deepEqual(
      list.json().data.map((x: { id: number; name: string }) => [x.id, x.name]),
      [[c.org.id, 'CLI Client']],
    );
  });
});

describe('a database that cannot be used at start', () => {
  // Not only "Error: connect ECONNREFUSED 127.0.0.1:1" or 'Error: database "…" does not exist', with nothing
  // saying it came from DATABASE_URL.
  test('names DATABASE_URL with user, host and database, never the password; exit 1', () => {
    const bin = fileURLToPath(new URL('../../bin/vulnintel.js', import.meta.url));
    const run = (url: string) =>
      spawnSync(process.execPath, [bin, 'migrate'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
    const refused = run('postgres://ops:s3cret-pw@127.0.0.1:1/vulnintel');
    assert.equal(refused.status, 1, refused.stderr);
    assert.equal(
      refused.stderr.trim(),
      'Error: Cannot open the database at DATABASE_URL (postgres://ops@127.0.0.1:1/vulnintel): connect ECONNREFUSED 127.0.0.1:1',
    );
    const missing = run(t.db.url.replace(/\/[^/]+$/, '/no_such_database_here'));
    assert.equal(missing.status, 1, missing.stderr);
    assert.match(
      missing.stderr,
      /^Error: Cannot open the database at DATABASE_URL \(postgres:\/\/postgres@127\.0\.0\.1:5432\/no_such_database_here\): database "no_such_database_here" does not exist\n$/,
    );
    assert.doesNotMatch(refused.stderr + missing.stderr, /s3cret/);
  });
});
