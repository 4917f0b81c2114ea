// The KEV catalog alone decides kev_flagged: /cves/kev lists exactly the catalog, even with CVE records whose
// CISA-ADP KEV marker names CVEs CISA has removed from it (CVE-2021-4043, CVE-2024-43491). The CNA's own title stays
// the CVE's title next to the KEV vulnerabilityName (CVE-2024-21338).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture, snapshotFile } from '../helpers/feeds.ts';

const CATALOG = snapshotFile('kev', 'known_exploited_vulnerabilities.json');
const REMOVED = ['CVE-2021-4043', 'CVE-2024-43491'];
let t: TestApp;
let pro: Record<string, string>;
before(async () => {
  t = await testApp();
  await importPaths(
    t.store.db,
    [CATALOG, ...[...REMOVED, 'CVE-2024-21338'].map((id) => fixture('cve5', `${id}.json`))],
    { log: { info() {}, warn() {} } },
  );
  pro = (await seedOrg(t.store, { tier: 'professional' })).auth;
});
after(async () => {
  await t.close();
});

test('/cves/kev equals the catalog (1,662 entries), across every page; the removed CVEs are not KEV', async () => {
  const catalog = (
    JSON.parse(readFileSync(CATALOG, 'utf8')) as { vulnerabilities: { cveID: string }[] }
  ).vulnerabilities.map((v) => v.cveID);
  assert.equal(catalog.length, 1662);
  for (const id of REMOVED) assert.ok(!catalog.includes(id), `${id} is not in the catalog`);
  const seen: string[] = [];
  for (let page = 1; ; page++) {
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/cves/kev?per_page=100&page=${page}`, headers: pro });
    assert.equal(r.statusCode, 200, r.body);
    const b = r.json();
    assert.equal(b.pagination.total, 1662);
    seen.push(...b.data.map((c: { cve_id: string }) => c.cve_id));
    if (b.data.length < 100) break;
  }
  assert.deepEqual([...seen].sort(), [...catalog].sort());
  for (const id of REMOVED) {
    const d = (await t.app.inject({ method: 'GET', url: `/api/v1/cves/${id}`, headers: pro })).json().data;
    assert.equal(d.exploitation.kev_flagged, false, id);
    assert.equal(d.exploitation.kev_added_at, null, id);
  }
  const stats = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/stats/summary' })).json().data;
  assert.equal(stats.kev, 1662);
});

test("title precedence: the CNA's title, not the KEV vulnerabilityName, on the detail and the stored card", async () => {
  const d = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/CVE-2024-21338', headers: pro })).json().data;
  assert.equal(d.title, 'Windows Kernel Elevation of Privilege Vulnerability');
  assert.equal(d.exploitation.kev_flagged, true);
  // The list cards read the stored title column.
  const row = (await t.store.pool.query('SELECT title FROM cves WHERE cve_id = $1', ['CVE-2024-21338'])).rows[0];
  assert.equal(row.title, 'Windows Kernel Elevation of Privilege Vulnerability');
  // A KEV-only CVE keeps the KEV name as its title.
  const kevOnly = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/CVE-2024-49138', headers: pro })).json().data;
  assert.equal(
    kevOnly.title,
    'Microsoft Windows Common Log File System (CLFS) Driver Heap-Based Buffer Overflow Vulnerability',
  );
});
