// Triage decisions (docs/triage.md) over real fixtures (test/fixtures/PROVENANCE.md): the NVD and CISA ICS CSAF
// records give the environment's stored correlation results (the Siemens drive's CVE-2024-46886, the ABB Symphony
// Plus CVE-2023-0228 whose vector is adjacent-network, two Windows 10 CVEs). Set, get, clear, the append-only
// history, the rules of VEX's fields, roles and key scopes, the list filters and the bulk call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createMember } from '../../src/store/identity.ts';
import { assertAnswer } from '../helpers/answer-schemas.ts';

const quiet = { log: { info() {}, warn() {} } };
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let other: Awaited<ReturnType<typeof seedOrg>>;
let env: number;
let env2: number;
const ASSETS = [
  {
    asset_id: 'drive-a',
    vendor: 'Siemens',
    product: 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)',
    version: 'V3.1.3',
  },
  { asset_id: 'abb-1', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '3.3' },
  { asset_id: 'eng-ws', vendor: 'Microsoft', product: 'Windows 10', version: null },
];

type Headers = Record<string, string>;
async function call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, headers: Headers, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.statusCode, body: r.json() };
}
const dec = (e: number, cve: string) => `/api/v1/environments/${e}/decisions/${cve}`;

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], quiet);
  o = await seedOrg(t.store, { name: 'Triage Plant' });
  other = await seedOrg(t.store, { name: 'Other Org' });
  env = (await call('POST', '/api/v1/environments', o.auth, { name: 'Line A' })).body.data.id;
  env2 = (await call('POST', '/api/v1/environments', o.auth, { name: 'Line B' })).body.data.id;
  const stored = await call('POST', '/api/v1/assets/correlate-cves', o.auth, { environment_id: env, assets: ASSETS });
  assert.equal(stored.status, 200, JSON.stringify(stored.body));
});
after(async () => {
  await t.close();
});

test('set, read, change and clear a decision; every change is in the history with who, when, before and after', async () => {
  const put1 = await call('PUT', dec(env, 'cve-2024-46886'), o.auth, {
    status: 'affected',
    action_statement: 'Segmented behind the cell firewall; patch at the March outage',
    due_date: '2027-03-15',
    impact_statement: 'Drive web UI reachable from the cell only',
    comment: 'Seen on the line walk',
  });
  assert.equal(put1.status, 201, JSON.stringify(put1.body));
  const d1 = put1.body.data;
  assert.equal(d1.cve_id, 'CVE-2024-46886');
  assert.equal(d1.environment_id, env);
  assert.equal(d1.status, 'affected');
  assert.equal(d1.open, true);
  assert.equal(d1.due_date, '2027-03-15');
  assert.deepEqual(d1.asset_ids, []);
  assert.equal(d1.version, 1);
  assert.equal(d1.source, 'api');
  assert.deepEqual(d1.review, { needed: false, reasons: [], since: null });
  assert.deepEqual(
    d1.comments.map((c: { text: string; by: string }) => [c.text, c.by]),
    [['Seen on the line walk', `${o.ownerEmail} (API key ${d1.comments[0].by.split('API key ')[1]}`]],
  );
  assert.match(d1.comments[0].by, /^owner@\d+\.example\.test \(API key vi_/);

  // Replaced: not_affected with CISA's justification, narrowed to the drive; the due date no longer applies.
  const put2 = await call('PUT', dec(env, 'CVE-2024-46886'), o.auth, {
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
    impact_statement: 'The web server is switched off',
    asset_ids: ['drive-a'],
  });
  assert.equal(put2.status, 200);
  assert.equal(put2.body.data.version, 2);
  assert.equal(put2.body.data.open, false);
  assert.equal(put2.body.data.due_date, null);
  assert.deepEqual(put2.body.data.asset_ids, ['drive-a']);

  // The same fields again with no comment: nothing changes, nothing is recorded.
  const same = await call('PUT', dec(env, 'CVE-2024-46886'), o.auth, {
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
    impact_statement: 'The web server is switched off',
    asset_ids: ['drive-a'],
  });
  assert.equal(same.status, 200);
  assert.equal(same.body.data.version, 2);

  const got = await call('GET', dec(env, 'CVE-2024-46886'), o.auth);
  assert.equal(got.status, 200);
  assert.equal(got.body.data.justification, 'vulnerable_code_not_in_execute_path');

  const cleared = await call(
    'DELETE',
    `${dec(env, 'CVE-2024-46886')}?comment=${encodeURIComponent('Drive replaced')}`,
    o.auth,
  );
  assert.equal(cleared.status, 200);
  assert.equal(cleared.body.data.status, 'not_affected', 'the removed decision is answered');
  const gone = await call('GET', dec(env, 'CVE-2024-46886'), o.auth);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.detail.error, 'decision_not_found');
  assert.equal(
    (await call('DELETE', dec(env, 'CVE-2024-46886'), o.auth)).body.error.detail.error,
    'decision_not_found',
  );

  const h = await call('GET', `${dec(env, 'CVE-2024-46886')}/history`, o.auth);
  assert.equal(h.status, 200);
  assert.deepEqual(
    h.body.data.map((x: { action: string }) => x.action),
    ['set', 'set', 'clear'],
  );
  const [first, second, third] = h.body.data;
  assert.equal(first.before, null);
  assert.equal(first.after.status, 'affected');
  assert.equal(first.after.due_date, '2027-03-15');
  assert.equal(first.comment, 'Seen on the line walk');
  assert.equal(first.actor.member_id, o.memberId);
  assert.equal(first.actor.key_id, o.keyId);
  assert.deepEqual(second.before, first.after, "each change's before is the previous after");
  assert.equal(second.after.justification, 'vulnerable_code_not_in_execute_path');
  assert.deepEqual(second.after.asset_ids, ['drive-a']);
  assert.deepEqual(third.before, second.after);
  assert.equal(third.after, null);
  assert.equal(third.comment, 'Drive replaced');
  assert.ok(Date.parse(first.at) <= Date.parse(second.at) && Date.parse(second.at) <= Date.parse(third.at));

  // Never rewritten: the store refuses an UPDATE of the trail.
  await assert.rejects(
    sql`UPDATE triage_decision_history SET comment = 'forged' WHERE org_id = ${o.orgId}`.execute(t.store.db),
    /append-only/,
  );
  const again = await call('GET', `${dec(env, 'CVE-2024-46886')}/history`, o.auth);
  assert.deepEqual(again.body.data, h.body.data);
});

test("VEX's rules: each status takes the fields it takes, and every refusal names its field; nothing is stored", async () => {
  const cases: [unknown, string, string][] = [
    [{ status: 'not_affected' }, 'body.justification', 'value_error.missing'],
    [
      { status: 'affected', justification: 'component_not_present', action_statement: 'x' },
      'body.justification',
      'value_error.not_allowed',
    ],
    [{ status: 'affected' }, 'body.action_statement', 'value_error.missing'],
    [{ status: 'affected', action_statement: '   ' }, 'body.action_statement', 'value_error.missing'],
    [{ status: 'fixed', due_date: '2027-01-01' }, 'body.due_date', 'value_error.not_allowed'],
    [{ status: 'affected', action_statement: 'patch', due_date: '2027-02-30' }, 'body.due_date', 'value_error.date'],
    [{ status: 'fixed', asset_ids: ['not-stored-here'] }, 'body.asset_ids', 'value_error.unknown_asset'],
    [{ status: 'fixed', assignee_member_id: other.memberId }, 'body.assignee_member_id', 'value_error.unknown_member'],
  ];
  for (const [body, field, type] of cases) {
    const r = await call('PUT', dec(env, 'CVE-2023-0228'), o.auth, body);
    assert.equal(r.status, 422, JSON.stringify(body));
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      r.body.error.detail.map((f: { field: string; type: string }) => [f.field, f.type]),
      [[field, type]],
      JSON.stringify(body),
    );
  }
  // A justification outside CISA's list and a status outside VEX's are refused by the schema.
  for (const body of [{ status: 'not_affected', justification: 'we_think_so' }, { status: 'false_positive' }]) {
    const r = await call('PUT', dec(env, 'CVE-2023-0228'), o.auth, body);
    assert.equal(r.status, 422);
    assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  }
  const none = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM triage_decision_history WHERE cve_id = 'CVE-2023-0228'`.execute(t.store.db);
  assert.equal(none.rows[0].n, 0, 'no refused call left a trace');

  const unknown = await call('PUT', dec(env, 'CVE-2099-0001'), o.auth, { status: 'fixed' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.detail.error, 'cve_not_found');
  const foreign = await call('PUT', dec(env, 'CVE-2023-0228'), other.auth, { status: 'fixed' });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.detail.error, 'environment_not_found');

  // An assignee of the organization: named in the answer.
  const m = await createMember(t.store.db, o.orgId, 'eng@plant.example.test', 'admin', 'Eng One');
  const ok = await call('PUT', dec(env, 'CVE-2023-0228'), o.auth, {
    status: 'under_investigation',
    assignee_member_id: m.id,
  });
  assert.equal(ok.status, 201);
  assert.deepEqual(ok.body.data.assignee, { member_id: m.id, email: 'eng@plant.example.test', name: 'Eng One' });
});

test('roles and scopes: owner and admin write, viewers read, a key without the write scope cannot write', async () => {
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
  const readOnly = await seedKey(t.store, o.orgId, null, { role: 'admin', scopes: ['read'] });
  const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
  const body = { status: 'fixed', impact_statement: 'Patched at the November outage' };
  const v = await call('PUT', dec(env, 'CVE-2024-49138'), viewer.auth, body);
  assert.equal(v.status, 403);
  assert.equal(v.body.error.detail.error, 'viewer_role');
  const r = await call('PUT', dec(env, 'CVE-2024-49138'), readOnly.auth, body);
  assert.equal(r.status, 403);
  assert.equal(r.body.error.detail.error, 'insufficient_scope');
  const bulk = await call('POST', `/api/v1/environments/${env}/decisions/bulk`, viewer.auth, {
    filter: { vendor: 'Microsoft' },
    decision: body,
  });
  assert.equal(bulk.status, 403);
  const a = await call('PUT', dec(env, 'CVE-2024-49138'), admin.auth, body);
  assert.equal(a.status, 201);
  assert.equal(a.body.data.updated_by.key_id, admin.keyId);
  // The viewer reads, by key and by session.
  assert.equal((await call('GET', dec(env, 'CVE-2024-49138'), viewer.auth)).body.data.status, 'fixed');
  const session = await seedSession(t.store, o.orgId, viewer.memberId);
  const list = await call('GET', `/api/v1/environments/${env}/decisions`, { cookie: session.cookie });
  assert.equal(list.status, 200);
  assert.ok(list.body.data.some((d: { cve_id: string }) => d.cve_id === 'CVE-2024-49138'));
  const hist = await call('GET', `${dec(env, 'CVE-2024-49138')}/history`, viewer.auth);
  assert.equal(hist.body.data[0].actor.key_id, admin.keyId);
});

test('the list filters by status, review flag, asset and CVE; decisions stay in their environment', async () => {
  await call('PUT', dec(env, 'CVE-2024-21338'), o.auth, {
    status: 'not_affected',
    justification: 'component_not_present',
    asset_ids: ['eng-ws'],
  });
  const list = async (qs: string, e = env) => {
    const r = await call('GET', `/api/v1/environments/${e}/decisions?${qs}`, o.auth);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.map((d: { cve_id: string }) => d.cve_id).sort();
  };
  assert.deepEqual(await list('status=not_affected'), ['CVE-2024-21338']);
  assert.deepEqual(await list('status=fixed,under_investigation'), ['CVE-2023-0228', 'CVE-2024-49138']);
  assert.deepEqual(
    await list('asset_id=drive-a'),
    ['CVE-2023-0228', 'CVE-2024-49138'],
    'environment-wide decisions cover every asset; the eng-ws one does not',
  );
  assert.deepEqual(await list('asset_id=eng-ws'), ['CVE-2023-0228', 'CVE-2024-21338', 'CVE-2024-49138']);
  assert.deepEqual(await list('cve_id=cve-2024-21338'), ['CVE-2024-21338']);
  assert.deepEqual(await list('review=true'), []);
  assert.deepEqual(await list('', env2), [], 'another environment of the same organization has none');
  const bad = await call('GET', `/api/v1/environments/${env}/decisions?status=maybe`, o.auth);
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  const foreign = await call('GET', `/api/v1/environments/${env}/decisions`, other.auth);
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.detail.error, 'environment_not_found');
});

test("bulk: one decision for every CVE a filter selects (here: ABB's adjacent-network CVEs), all or none, each with its history row", async () => {
  const url = `/api/v1/environments/${env2}/decisions/bulk`;
  // Line B: the same assets, stored there too.
  assert.equal(
    (await call('POST', '/api/v1/assets/correlate-cves', o.auth, { environment_id: env2, assets: ASSETS })).status,
    200,
  );
  const decision = {
    status: 'not_affected',
    justification: 'inline_mitigations_already_exist',
    impact_statement: 'Reached only through the cell firewall',
  };
  const empty = await call('POST', url, o.auth, { filter: {}, decision });
  assert.equal(empty.status, 422);
  assert.equal(empty.body.error.detail[0].field, 'body.filter');
  const badDecision = await call('POST', url, o.auth, {
    filter: { attack_vector: 'A' },
    decision: { status: 'not_affected' },
  });
  assert.equal(badDecision.body.error.detail[0].field, 'body.decision.justification');

  const dry = await call('POST', url, o.auth, { filter: { attack_vector: 'A' }, decision, dry_run: true });
  assert.equal(dry.status, 200, JSON.stringify(dry.body));
  assert.deepEqual(dry.body.data, {
    matched: 1,
    created: 0,
    updated: 0,
    unchanged: 0,
    cve_ids: ['CVE-2023-0228'],
    dry_run: true,
  });
  assert.deepEqual(
    (await call('GET', `/api/v1/environments/${env2}/decisions`, o.auth)).body.data,
    [],
    'a dry run writes nothing',
  );

  // Local-vector CVEs of the Windows workstation, by vendor and vector: the two Windows 10 CVEs.
  const local = await call('POST', url, o.auth, {
    filter: { vendor: 'microsoft', attack_vector: 'L' },
    decision: { status: 'under_investigation' },
    dry_run: true,
  });
  assert.deepEqual(local.body.data.cve_ids, ['CVE-2024-21338', 'CVE-2024-49138']);
  const byProduct = await call('POST', url, o.auth, {
    filter: { product: 'symphony plus', attack_vector: 'A' },
    decision,
  });
  assert.equal(byProduct.status, 200);
  assert.deepEqual(byProduct.body.data, {
    matched: 1,
    created: 1,
    updated: 0,
    unchanged: 0,
    cve_ids: ['CVE-2023-0228'],
    dry_run: false,
  });
  const twice = await call('POST', url, o.auth, { filter: { product: 'symphony plus', attack_vector: 'A' }, decision });
  assert.deepEqual([twice.body.data.created, twice.body.data.updated, twice.body.data.unchanged], [0, 0, 1]);

  // Every CVE still undecided in the environment: the drive's and the two Windows ones.
  const rest = await call('POST', url, o.auth, {
    filter: { decision: ['none'] },
    decision: { status: 'under_investigation' },
    comment: 'Sweep',
  });
  assert.deepEqual(rest.body.data.cve_ids, ['CVE-2024-21338', 'CVE-2024-46886', 'CVE-2024-49138']);
  const h = await call('GET', `${dec(env2, 'CVE-2024-46886')}/history`, o.auth);
  assert.deepEqual(
    h.body.data.map((x: { action: string; comment: string }) => [x.action, x.comment]),
    [['bulk', 'Sweep']],
  );
  const got = await call('GET', dec(env2, 'CVE-2023-0228'), o.auth);
  assert.equal(got.body.data.source, 'bulk');
  assert.equal(got.body.data.justification, 'inline_mitigations_already_exist');
  // Named CVEs alone: any CVE of the corpus (here one no stored asset has); unknown ids are not decided.
  const named = await call('POST', url, o.auth, {
    filter: { cve_ids: ['CVE-2022-45793', 'CVE-2099-0001'] },
    decision: { status: 'fixed' },
  });
  assert.deepEqual(named.body.data.cve_ids, ['CVE-2022-45793']);
});

test("stored results and correlate-cves in an environment show each CVE's decision; not_affected and fixed leave the open counts, still listed", async () => {
  // Line A now: CVE-2023-0228 under_investigation and CVE-2024-49138 fixed (whole environment), CVE-2024-21338
  // not_affected for eng-ws only, CVE-2024-46886 cleared (undecided).
  const r = await call('GET', `/api/v1/assets/results?environment_id=${env}`, o.auth);
  assert.equal(r.status, 200);
  assertAnswer('stored', r.body);
  const byAsset = Object.fromEntries(r.body.data.assets.map((a: { asset_id: string }) => [a.asset_id, a]));
  const marks = (id: string) =>
    Object.fromEntries(byAsset[id].cves.map((c: { cve_id: string; decision: unknown }) => [c.cve_id, c.decision]));
  assert.deepEqual(marks('drive-a'), { 'CVE-2024-46886': null });
  assert.deepEqual(marks('abb-1'), {
    'CVE-2023-0228': { status: 'under_investigation', open: true, review_again: false },
  });
  assert.deepEqual(
    marks('eng-ws'),
    {
      'CVE-2024-21338': { status: 'not_affected', open: false, review_again: false },
      'CVE-2024-49138': { status: 'fixed', open: false, review_again: false },
    },
    'decided CVEs are listed with their decision, never hidden',
  );
  const zero = {
    open: 0,
    undecided: 0,
    under_investigation: 0,
    affected: 0,
    not_affected: 0,
    fixed: 0,
    review_again: 0,
  };
  assert.deepEqual(byAsset['drive-a'].decision_counts, { ...zero, open: 1, undecided: 1 });
  assert.deepEqual(byAsset['abb-1'].decision_counts, { ...zero, open: 1, under_investigation: 1 });
  assert.deepEqual(byAsset['eng-ws'].decision_counts, { ...zero, not_affected: 1, fixed: 1 });
  assert.deepEqual(
    byAsset['eng-ws'].counts,
    { affected: 0, not_affected: 0, needs_review: 2 },
    'the correlation counts are as before',
  );
  assert.deepEqual(r.body.data.decision_counts, {
    ...zero,
    open: 2,
    undecided: 1,
    under_investigation: 1,
    not_affected: 1,
    fixed: 1,
  });

  // correlate-cves storing into the environment answers the same; without an environment there is no decision.
  const stored = await call('POST', '/api/v1/assets/correlate-cves', o.auth, {
    environment_id: env,
    assets: [ASSETS[2]],
  });
  assertAnswer('correlate', stored.body);
  assert.deepEqual(stored.body.data.decision_counts, { ...zero, not_affected: 1, fixed: 1 });
  assert.equal(
    stored.body.data.assets[0].cves.find((c: { cve_id: string }) => c.cve_id === 'CVE-2024-21338').decision.status,
    'not_affected',
  );
  const plain = await call('POST', '/api/v1/assets/correlate-cves', o.auth, { assets: [ASSETS[2]] });
  assertAnswer('correlate', plain.body);
  assert.equal(plain.body.data.decision_counts, undefined);
  assert.ok(plain.body.data.assets[0].cves.every((c: object) => !('decision' in c)));
});
