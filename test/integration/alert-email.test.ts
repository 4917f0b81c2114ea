// Alert email (docs/alerts.md "Email") against the in-process SMTP server: after a run, instant messages
// go to the members whose preferences ask for instant delivery and match (severity, BCS, KEV-only, email on); the
// daily digest goes to the members on daily_digest (the defaults included); each (member, alert) once, whatever is
// repeated; a deactivated organization's members get nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import type { AlertRunReport } from '../../src/services/alert-run.ts';
import { emailAlerts } from '../../src/jobs/alerts.ts';
import { loadConfig, type Config } from '../../src/config.ts';

let t: TestApp;
let smtp: TestSmtp;
let config: Config;
const quiet = { info() {}, warn() {} };
const log = {
  info() {},
  warn(_m: string, e: Error) {
    throw e;
  },
};
const svc = () => createAlertService(t.store.db, { publicUrl: t.config.publicUrl, now: () => new Date() });
type Facts = { cve_id: string; cvss: number | null; kev: boolean; bcs: number | null };
let facts: Facts[];
const emails = new Map<string, string>(); // name → address

async function member(
  orgId: number,
  name: string,
  prefs: {
    email_enabled: boolean;
    min_severity: string | null;
    min_bcs: number | null;
    kev_only: boolean;
    delivery: string;
  } | null,
) {
  const k = await seedKey(t.store, orgId, null, { role: 'viewer' });
  const r = await sql<{ email: string }>`SELECT email FROM members WHERE id = ${k.memberId}`.execute(t.store.db);
  emails.set(name, r.rows[0].email);
  if (prefs) {
    await sql`INSERT INTO notification_preferences (org_id, member_id, email_enabled, min_severity, min_bcs, kev_only, delivery, updated_at)
      VALUES (${orgId}, ${k.memberId}, ${prefs.email_enabled}, ${prefs.min_severity}, ${prefs.min_bcs}, ${prefs.kev_only}, ${prefs.delivery}, now())`.execute(
      t.store.db,
    );
  }
}
const to = (name: string) => smtp.messages.filter((m) => m.to.includes(emails.get(name)!.toLowerCase()));
const cvesIn = (text: string) => [...new Set(text.match(/CVE-\d{4}-\d+/g) ?? [])].sort();
const sev = (s: number | null) => (s === null ? 0 : s >= 9 ? 4 : s >= 7 ? 3 : s >= 4 ? 2 : s > 0 ? 1 : 0);

before(async () => {
  smtp = await startSmtp();
  t = await testApp();
  config = loadConfig({ VULNINTEL_DATA_DIR: '/tmp', SMTP_URL: smtp.url, LOG_LEVEL: 'silent' });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  const org = await seedOrg(t.store, { name: 'Email Org' });
  const off = await seedOrg(t.store, { name: 'Email Deactivated' });
  for (const o of [org, off]) {
    for (const v of ['microsoft', 'schneider-electric']) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/v1/watchlist',
        headers: { ...o.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ entity_type: 'vendor', entity_id: v }),
      });
      assert.equal(r.statusCode, 201);
    }
  }
  emails.set('owner', org.ownerEmail);
  await member(org.orgId, 'all', {
    email_enabled: true,
    min_severity: null,
    min_bcs: null,
    kev_only: false,
    delivery: 'instant',
  });
  await member(org.orgId, 'kevhigh', {
    email_enabled: true,
    min_severity: 'HIGH',
    min_bcs: null,
    kev_only: true,
    delivery: 'instant',
  });
  await member(org.orgId, 'high', {
    email_enabled: true,
    min_severity: 'HIGH',
    min_bcs: null,
    kev_only: false,
    delivery: 'instant',
  });
  await member(org.orgId, 'crit', {
    email_enabled: true,
    min_severity: 'CRITICAL',
    min_bcs: null,
    kev_only: false,
    delivery: 'instant',
  });
  await member(org.orgId, 'bcs9', {
    email_enabled: true,
    min_severity: null,
    min_bcs: 9,
    kev_only: false,
    delivery: 'instant',
  });
  await member(org.orgId, 'muted', {
    email_enabled: false,
    min_severity: null,
    min_bcs: null,
    kev_only: false,
    delivery: 'instant',
  });
  await member(org.orgId, 'digestlow', {
    email_enabled: true,
    min_severity: 'LOW',
    min_bcs: null,
    kev_only: false,
    delivery: 'daily_digest',
  });
  await member(off.orgId, 'elsewhere', {
    email_enabled: true,
    min_severity: null,
    min_bcs: null,
    kev_only: false,
    delivery: 'instant',
  });

  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json'), ...CSAF_FIXTURES])], { log: quiet });
  await sql`UPDATE organizations SET status = 'deactivated' WHERE id = ${off.orgId}`.execute(t.store.db);
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.ok(r.alerts_stored > 0);
  const f =
    await sql<Facts>`SELECT a.cve_id, (a.payload->'data'->>'cvss_score')::float8 AS cvss, (a.payload->'data'->>'kev_flagged')::boolean AS kev,
      (c.doc->'scoring'->'bcs'->>'score')::float8 AS bcs
    FROM alert_view a JOIN cves c USING (cve_id) WHERE a.org_id = ${org.orgId}`.execute(t.store.db);
  facts = f.rows;
});
after(async () => {
  await t.close();
  await smtp.close();
});

test('instant: one message per matching alert, to the members whose preferences match', async () => {
  const r = await emailAlerts(config, svc(), 'instant', log);
  const expect = {
    all: facts.map((x) => x.cve_id).sort(),
    kevhigh: facts
      .filter((x) => x.kev && sev(x.cvss) >= 3)
      .map((x) => x.cve_id)
      .sort(),
    high: facts
      .filter((x) => sev(x.cvss) >= 3)
      .map((x) => x.cve_id)
      .sort(),
    crit: facts
      .filter((x) => sev(x.cvss) >= 4)
      .map((x) => x.cve_id)
      .sort(),
    bcs9: facts
      .filter((x) => (x.bcs ?? 0) >= 9)
      .map((x) => x.cve_id)
      .sort(),
  };
  // The fixtures separate the thresholds: 4 alerts; 3 HIGH or above (one MEDIUM, 5.9); 2 in KEV; 2 with BCS 10; none CRITICAL.
  assert.deepEqual(
    [expect.all.length, expect.high.length, expect.kevhigh.length, expect.bcs9.length, expect.crit.length],
    [4, 3, 2, 2, 0],
  );
  for (const [name, cves] of Object.entries(expect)) {
    const got = to(name);
    assert.equal(got.length, cves.length, `${name}: one message per alert`);
    assert.deepEqual(got.map((m) => cvesIn(m.text)[0]).sort(), cves, name);
    for (const m of got) assert.match(m.subject, /^\[Vulnintel\] (PATCH NOW|PATCH NEXT|MONITOR|IGNORE): CVE-/);
  }
  for (const name of ['muted', 'owner', 'digestlow', 'elsewhere'])
    assert.equal(to(name).length, 0, `${name} gets no instant email`);
  assert.equal(r.messages, expect.all.length + expect.kevhigh.length + expect.high.length + expect.bcs9.length);
  const k = to('all').find((m) => m.text.includes('CVE-2024-21338'))!;
  assert.match(k.text, /Why: added to KEV/);
  assert.match(k.text, /Matched: vendor Microsoft/);
  assert.match(k.text, new RegExp(`${t.config.publicUrl}/cve/CVE-2024-21338`));

  const n = smtp.messages.length;
  assert.deepEqual(await emailAlerts(config, svc(), 'instant', log), { messages: 0, alerts: 0, failed: 0 });
  assert.equal(smtp.messages.length, n, 'nothing twice');
});

test('daily digest: one message per member on daily_digest (defaults included), each alert once', async () => {
  const r = await emailAlerts(config, svc(), 'daily_digest', log);
  const owner = to('owner');
  assert.equal(owner.length, 1);
  assert.match(owner[0].subject, /^\[Vulnintel\] Daily digest: \d+ alerts?$/);
  // The defaults: HIGH and above.
  assert.deepEqual(
    cvesIn(owner[0].text),
    facts
      .filter((x) => sev(x.cvss) >= 3)
      .map((x) => x.cve_id)
      .sort(),
  );
  const low = to('digestlow');
  assert.equal(low.length, 1);
  assert.deepEqual(
    cvesIn(low[0].text),
    facts
      .filter((x) => sev(x.cvss) >= 1)
      .map((x) => x.cve_id)
      .sort(),
  );
  assert.equal(cvesIn(low[0].text).length, 4);
  assert.equal(cvesIn(owner[0].text).length, 3);
  assert.equal(r.messages, 2);
  for (const name of ['all', 'kevhigh', 'high', 'bcs9'])
    assert.equal(to(name).filter((m) => /digest/i.test(m.subject)).length, 0);

  const n = smtp.messages.length;
  assert.deepEqual(await emailAlerts(config, svc(), 'daily_digest', log), { messages: 0, alerts: 0, failed: 0 });
  assert.equal(smtp.messages.length, n, 'nothing twice');
});
