// The alert run honours triage decisions (docs/triage.md "Alerts"), with a real KEV change: the CISA KEV catalog
// cut (test/fixtures/kev/kev-cut.json) adds CVE-2024-21338 and CVE-2024-49138, both of which the Windows 10
// workstation stored in each organization's environment matches (NVD records). Organization A decided
// CVE-2024-21338 not_affected before the KEV addition (a new fact: "review again", and an alert with that reason)
// and CVE-2024-49138 not_affected after it (no alert). Organization B decided nothing: both alert.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import type { AlertRunReport } from '../../src/services/alert-run.ts';

const quiet = { info() {}, warn() {} };
let t: TestApp;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let envA: number;
const WS = { asset_id: 'eng-ws-01', vendor: 'Microsoft', product: 'Windows 10', version: null };

async function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: r.json() };
}
const run = async () =>
  (await createAlertService(t.store.db, {
    publicUrl: t.config.publicUrl,
    now: () => new Date('2026-11-21T12:15:00Z'),
  }).run('cli')) as AlertRunReport;
const alertsOf = async (o: typeof a) =>
  (await call('GET', '/api/v1/alerts?per_page=100', o.auth)).body.data as {
    cve_id: string;
    reasons: string[];
    payload: { data: { matches?: { entity_type: string; entity_name: string; reason?: string; asset_id?: string }[] } };
  }[];
const notAffected = {
  status: 'not_affected',
  justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
  impact_statement: 'Engineering workstation has no local users but the admins',
};

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  a = await seedOrg(t.store, { name: 'Decided Plant' });
  b = await seedOrg(t.store, { name: 'Undecided Plant' });
  envA = (await call('POST', '/api/v1/environments', a.auth, { name: 'Plant A' })).body.data.id;
  const envB = (await call('POST', '/api/v1/environments', b.auth, { name: 'Plant B' })).body.data.id;
  assert.equal(
    (await call('POST', '/api/v1/assets/correlate-cves', a.auth, { environment_id: envA, assets: [WS] })).status,
    200,
  );
  assert.equal(
    (await call('POST', '/api/v1/assets/correlate-cves', b.auth, { environment_id: envB, assets: [WS] })).status,
    200,
  );
  await run(); // the baseline import's window
});
after(async () => {
  await t.close();
});

test('not_affected before a KEV addition: review again, and an alert with that reason; not_affected after it: no alert', async () => {
  assert.equal(
    (await call('PUT', `/api/v1/environments/${envA}/decisions/CVE-2024-21338`, a.auth, notAffected)).status,
    201,
  );
  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json')])], { log: quiet });
  // Decided once the KEV addition is known: the decision is newer than the fact.
  assert.equal(
    (await call('PUT', `/api/v1/environments/${envA}/decisions/CVE-2024-49138`, a.auth, notAffected)).status,
    201,
  );
  const r = await run();
  assert.ok(r.cves >= 2);

  // B decided nothing: both KEV additions alert it through its workstation.
  const bAlerts = await alertsOf(b);
  assert.deepEqual(bAlerts.map((x) => x.cve_id).sort(), ['CVE-2024-21338', 'CVE-2024-49138']);
  for (const x of bAlerts) assert.ok(x.payload.data.matches!.some((m) => m.asset_id === 'eng-ws-01'));

  // A: CVE-2024-49138 is skipped; CVE-2024-21338 alerts, with "review again" first among its matches.
  const aAlerts = await alertsOf(a);
  assert.deepEqual(
    aAlerts.map((x) => x.cve_id),
    ['CVE-2024-21338'],
  );
  const m = aAlerts[0].payload.data.matches!;
  assert.equal(m[0].entity_type, 'environment');
  assert.equal(m[0].entity_name, 'Plant A');
  assert.match(m[0].reason!, /^review again: added to KEV after the decision/);
  assert.ok(aAlerts[0].reasons.includes('added to KEV'));

  // The decision is flagged, with the trail saying so; the one decided after the fact is not.
  const d = (await call('GET', `/api/v1/environments/${envA}/decisions/CVE-2024-21338`, a.auth)).body.data;
  assert.equal(d.review.needed, true);
  assert.ok(d.review.reasons.includes('review again: added to KEV after the decision'), d.review.reasons.join('|'));
  assert.equal(d.status, 'not_affected', 'flagging changes no field of the decision');
  const h = (await call('GET', `/api/v1/environments/${envA}/decisions/CVE-2024-21338/history`, a.auth)).body.data;
  assert.deepEqual(
    h.map((x: { action: string }) => x.action),
    ['set', 'review_flagged'],
  );
  assert.equal(h[1].actor.label, 'alert run');
  assert.deepEqual(h[1].before.review_reasons, []);
  assert.deepEqual(h[1].after.review_reasons, d.review.reasons);
  const other = (await call('GET', `/api/v1/environments/${envA}/decisions/CVE-2024-49138`, a.auth)).body.data;
  assert.equal(other.review.needed, false);
  const flagged = (await call('GET', `/api/v1/environments/${envA}/decisions?review=true`, a.auth)).body.data;
  assert.deepEqual(
    flagged.map((x: { cve_id: string }) => x.cve_id),
    ['CVE-2024-21338'],
  );

  // Nothing new: the next run flags nothing again and stores nothing.
  const again = await run();
  assert.equal(again.alerts_stored, 0);
  assert.equal(
    (await call('GET', `/api/v1/environments/${envA}/decisions/CVE-2024-21338/history`, a.auth)).body.data.length,
    2,
  );

  // Reviewed: set again (the same fields), the flag is cleared.
  const reviewed = await call('PUT', `/api/v1/environments/${envA}/decisions/CVE-2024-21338`, a.auth, {
    ...notAffected,
    comment: 'Reviewed after the KEV addition',
  });
  assert.equal(reviewed.status, 200);
  assert.deepEqual(reviewed.body.data.review, { needed: false, reasons: [], since: null });
  assert.equal(reviewed.body.data.version, 2);
});
