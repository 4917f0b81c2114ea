// Plant reports (docs/reports.md): on demand as HTML and PDF over HTTP, and by email on each member's schedule
// against the in-process SMTP server, with an injected clock: a report that cannot be sent (SMTP down) is retried
// on the next run and is never sent twice; the next period's report says what changed since the last one.
// Real fixtures: the NVD records and the CISA KEV cut of test/fixtures (PROVENANCE.md) for a Windows 10 22H2
// workstation, which both KEV CVEs of the cut affect.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { freePort } from '../helpers/net.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { emailPlantReports, plantReportsFor } from '../../src/jobs/reports.ts';
import { utcDay } from '../../src/domain/exposure.ts';

const quiet = { info() {}, warn() {} };
let t: TestApp;
let smtp: TestSmtp;
let config: Config;
let org: Awaited<ReturnType<typeof seedOrg>>;
let monthly: { email: string; auth: Record<string, string> };
let env: number;
const WS = { asset_id: 'eng-ws-01', vendor: 'Microsoft', product: 'Windows 10 22H2', version: '10.0.19045.1000' };
const IMPACT = 'The kernel driver is not loaded on the engineering workstations of Line 1';

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return r;
}
const send = (c: Config) => emailPlantReports(c, plantReportsFor(t.store.db, c, t.clock), quiet);
const to = (email: string) => smtp.messages.filter((m) => m.to.includes(email.toLowerCase()));

before(async () => {
  smtp = await startSmtp();
  t = await testApp({ now: '2026-11-20T10:00:00Z' });
  config = loadConfig({
    VULNINTEL_DATA_DIR: '/tmp',
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'silent',
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
  });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, fixture('kev', 'kev-cut.json')])], {
    log: quiet,
  });
  org = await seedOrg(t.store, { name: 'Report Works' });
  env = (await call('POST', '/api/v1/environments', org.auth, { name: 'Line 1' })).json().data.id;
  assert.equal(
    (await call('POST', '/api/v1/assets/correlate-cves', org.auth, { environment_id: env, assets: [WS] })).statusCode,
    200,
  );
  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${env}/decisions/CVE-2024-49138`, org.auth, {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: IMPACT,
      })
    ).statusCode,
    201,
  );
  const k = await seedKey(t.store, org.orgId, null, { role: 'viewer' });
  const r = await sql<{ email: string }>`SELECT email FROM members WHERE id = ${k.memberId}`.execute(t.store.db);
  monthly = { email: r.rows[0].email, auth: k.auth };
});
after(async () => {
  await t.close();
  await smtp.close();
});

test("on demand: the HTML report holds every section with the environment's facts; the PDF is a PDF; bad dates are refused", async () => {
  // The decision's history row is written at the database's time: the period spans it.
  const today = utcDay(new Date());
  const from = utcDay(new Date(Date.now() - 2 * 86_400_000));
  const r = await call('GET', `/api/v1/environments/${env}/report?from=${from}&to=${today}`, org.auth);
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  const h = r.body;
  assert.match(h, /<h1>Plant report: Line 1<\/h1>/);
  assert.match(h, new RegExp(`period ${from} to ${today}`));
  assert.match(h, /data-figure="open_cves">1</, 'CVE-2024-49138 is decided not_affected: one open CVE');
  assert.match(h, /data-figure="known_exploited">1</);
  assert.match(h, /data-figure="assets_exposed">1 of 1</);
  const section = (id: string) =>
    h.slice(h.indexOf(`<section id="${id}"`), h.indexOf('</section>', h.indexOf(`<section id="${id}"`)));
  assert.match(section('patch-first'), /CVE-2024-21338/);
  assert.doesNotMatch(section('patch-first'), /CVE-2024-49138/);
  assert.match(section('patch-first'), /eng-ws-01 \(Windows 10 22H2 10\.0\.19045\.1000\)/);
  assert.match(section('kev'), /Known-exploited CVEs \(<!-- -->1<!-- -->\)|Known-exploited CVEs \(1\)/);
  assert.match(section('decisions'), /CVE-2024-49138/);
  assert.match(section('decisions'), /vulnerable_code_not_in_execute_path/);
  assert.match(section('decisions'), new RegExp(`Impact: ${IMPACT}`));
  assert.match(section('eol'), /None\./);
  assert.match(section('changes'), /No earlier report of this environment\./);

  const pdf = await call('GET', `/api/v1/environments/${env}/report?from=${from}&to=${today}&format=pdf`, org.auth);
  assert.equal(pdf.statusCode, 200);
  assert.equal(pdf.headers['content-type'], 'application/pdf');
  assert.equal(pdf.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(pdf.rawPayload.subarray(-8).toString('latin1'), /%%EOF/);
  assert.ok(pdf.rawPayload.length > 2000);

  const bad = await call('GET', `/api/v1/environments/${env}/report?from=2026-13-01`, org.auth);
  assert.equal(bad.statusCode, 422);
  assert.deepEqual(
    bad.json().error.detail.map((f: { field: string }) => f.field),
    ['query.from'],
  );
});

test("the schedule is each member's: none until set, weekly or monthly; other values refused", async () => {
  assert.deepEqual((await call('GET', '/api/v1/account/report-schedule', org.auth)).json().data, {
    cadence: 'none',
    updated_at: null,
  });
  const put = await call('PUT', '/api/v1/account/report-schedule', org.auth, { cadence: 'weekly' });
  assert.equal(put.statusCode, 200);
  assert.deepEqual(put.json().data, { cadence: 'weekly', updated_at: '2026-11-20T10:00:00.000Z' });
  assert.equal(
    (await call('PUT', '/api/v1/account/report-schedule', monthly.auth, { cadence: 'monthly' })).statusCode,
    200,
  );
  const bad = await call('PUT', '/api/v1/account/report-schedule', org.auth, { cadence: 'daily' });
  assert.equal(bad.statusCode, 422);
  assert.equal((await call('GET', '/api/v1/account/report-schedule', org.auth)).json().data.cadence, 'weekly');
});

test('scheduled: SMTP down, nothing is marked sent and the next run sends it; each report once; the next week says what changed', async () => {
  t.clock.set('2026-11-23T06:00:00Z'); // a Monday
  const down = loadConfig({
    VULNINTEL_DATA_DIR: '/tmp',
    SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'silent',
  });
  const failed = await send(down);
  assert.deepEqual(failed, { sent: 0, failed: 2, already: 0 });
  assert.equal(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM report_deliveries`.execute(t.store.db)).rows[0].n,
    0,
    'the claims are given back',
  );

  t.clock.set('2026-11-24T06:00:00Z'); // the next day's run retries them
  assert.deepEqual(await send(config), { sent: 2, failed: 0, already: 0 });
  const weekly = to(org.ownerEmail);
  assert.equal(weekly.length, 1);
  assert.equal(weekly[0].subject, '[Vulnintel] Weekly plant report: Line 1, 2026-11-16 to 2026-11-22');
  assert.match(weekly[0].text, /Open CVEs: 1 \(PATCH NOW/);
  assert.match(weekly[0].text, /WHAT TO PATCH FIRST[^\n]*\n[^\n]*CVE-2024-21338 \[KEV\]/);
  assert.match(weekly[0].text, /eng-ws-01 \(Windows 10 22H2 10\.0\.19045\.1000\): (fixed in \S+|no fix stated)/);
  assert.match(weekly[0].text, /No earlier report of this environment\./);
  assert.match(
    weekly[0].text,
    new RegExp(
      `PDF: http://vulnintel.test/api/v1/environments/${env}/report\\?from=2026-11-16&to=2026-11-22&format=pdf`,
    ),
  );
  // The report's PDF is attached: a PDF of that environment and week, named after them.
  assert.deepEqual(
    weekly[0].attachments.map((a) => [a.contentType, a.filename]),
    [['application/pdf', 'plant-report-line-1-2026-11-16-to-2026-11-22.pdf']],
  );
  const pdf = weekly[0].attachments[0].content;
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(pdf.subarray(-8).toString('latin1'), /%%EOF/);
  // Its title and subject (the document information, strings pdfkit writes uncompressed).
  assert.match(pdf.toString('latin1'), /\(Plant report: Line 1\)/, 'the PDF names the environment');
  assert.match(pdf.toString('latin1'), /\(2026-11-16 to 2026-11-22\)/);
  const month = to(monthly.email);
  assert.equal(month.length, 1);
  assert.match(month[0].attachments[0].filename, /^plant-report-line-1-2026-10-01-to-2026-10-31\.pdf$/);
  assert.equal(month[0].subject, '[Vulnintel] Monthly plant report: Line 1, 2026-10-01 to 2026-10-31');

  // Again the same day, and on a later day of the same week: nothing twice.
  assert.deepEqual(await send(config), { sent: 0, failed: 0, already: 2 });
  t.clock.set('2026-11-27T06:00:00Z');
  assert.deepEqual(await send(config), { sent: 0, failed: 0, already: 2 });
  assert.equal(smtp.messages.length, 2);

  // The decision is cleared: CVE-2024-49138 is open again in the next week's report, against the last one sent.
  assert.equal(
    (await call('DELETE', `/api/v1/environments/${env}/decisions/CVE-2024-49138`, org.auth)).statusCode,
    200,
  );
  t.clock.set('2026-11-30T06:00:00Z');
  assert.deepEqual(await send(config), { sent: 1, failed: 0, already: 1 });
  const next = to(org.ownerEmail)[1];
  assert.equal(next.subject, '[Vulnintel] Weekly plant report: Line 1, 2026-11-23 to 2026-11-29');
  assert.match(next.text, /Since the report of 2026-11-16 to 2026-11-22: open CVEs \+1, KEV \+1, exposed assets 0/);
  assert.match(next.text, /Newly open: CVE-2024-49138/);
  assert.match(next.text, /No longer open: none/);
});
