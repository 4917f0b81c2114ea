// The bulk decision's write (store/triage-bulk.ts bulkWriteDecisions): one statement that decides many CVEs at once must
// store what the row-by-row write (writeDecisions, the path of a single set) stores: the same decision rows, and
// history rows with the same before and after. A decision that already has the fields is left as it is, unless it
// is flagged for review; a statement that fails stores nothing, neither decisions nor history rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { createOrganization, createMember } from '../../src/store/identity.ts';
import { flagForReview, getDecisions, writeDecisions } from '../../src/store/triage-decisions.ts';
import type { Actor } from '../../src/store/triage-history.ts';
import { bulkWriteDecisions } from '../../src/store/triage-bulk.ts';
import type { DecisionFields } from '../../src/domain/triage.ts';

let t: TestDb;
let org: number;
let actor: Actor;
before(async () => {
  t = await freshDb();
  org = (await createOrganization(t.store.db, 'Bulk Plant', 'professional')).id;
  const m = await createMember(t.store.db, org, 'owner@bulk.example.test', 'owner', 'Owner');
  actor = { member: m.id, key: null, label: 'owner@bulk.example.test' };
});
after(async () => {
  await t?.drop();
});

const env = async (name: string) =>
  (
    await sql<{
      id: number;
    }>`INSERT INTO environments (org_id, name) VALUES (${org}, ${name}) RETURNING id::float8 AS id`.execute(t.store.db)
  ).rows[0].id;

const affected: DecisionFields = {
  status: 'affected',
  justification: null,
  impact_statement: null,
  action_statement: 'Patch at the March outage',
  due_date: '2027-03-15',
  asset_ids: ['plc-1', 'plc-2'],
  assignee_member_id: null,
};
const harmless: DecisionFields = {
  status: 'not_affected',
  justification: 'vulnerable_code_not_in_execute_path',
  impact_statement: 'The web server is off',
  action_statement: null,
  due_date: null,
  asset_ids: [],
  assignee_member_id: null,
};

/** The environment's decisions and its trail, without what differs between two environments (ids, times). */
async function stored(environmentId: number) {
  const d = await sql<
    Record<string, unknown>
  >`SELECT cve_id, status, justification, impact_statement, action_statement, to_char(due_date, 'YYYY-MM-DD') AS due_date,
      asset_ids, assignee_member_id, review_reasons, review_since IS NOT NULL AS flagged, version, source, updated_by_member::float8 AS updated_by_member
    FROM triage_decisions WHERE environment_id = ${environmentId} ORDER BY cve_id`.execute(t.store.db);
  const h = await sql<
    Record<string, unknown>
  >`SELECT cve_id, action, actor_member::float8 AS actor_member, actor_label, before, after, comment
    FROM triage_decision_history WHERE environment_id = ${environmentId} ORDER BY cve_id, id`.execute(t.store.db);
  return { decisions: d.rows, history: h.rows };
}

/** The same start in an environment: CVE 1 decided as `affected`, 2 as `harmless`, 3 as `harmless` and flagged for review. */
async function start(environmentId: number) {
  await t.store.db.transaction().execute(async (trx) => {
    await writeDecisions(
      trx,
      org,
      environmentId,
      [
        { cve_id: 'CVE-2024-0001', fields: affected, comment: null },
        { cve_id: 'CVE-2024-0002', fields: harmless, comment: null },
        { cve_id: 'CVE-2024-0003', fields: harmless, comment: 'First look' },
      ],
      new Map(),
      actor,
      'set',
    );
    await flagForReview(
      trx,
      [
        {
          org_id: org,
          environment_id: environmentId,
          cve_id: 'CVE-2024-0003',
          reasons: ['review again: added to KEV after the decision'],
        },
      ],
      actor,
    );
  });
}

test('one statement stores what the row-by-row write stores: decisions, history before and after; unchanged ones untouched, flagged ones written', async () => {
  const [rowwise, bulk] = [await env('row by row'), await env('bulk')];
  await start(rowwise);
  await start(bulk);
  const ids = ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004'];

  // Row by row: what the service's bulk path did, each CVE compared in turn.
  await t.store.db.transaction().execute(async (trx) => {
    const cur = await getDecisions(trx, org, rowwise, ids, true);
    const writes = ids
      .filter((id) => id !== 'CVE-2024-0002')
      .map((id) => ({ cve_id: id, fields: harmless, comment: 'Sweep' }));
    await writeDecisions(trx, org, rowwise, writes, cur, actor, 'bulk');
  });
  const counts = await t.store.db
    .transaction()
    .execute((trx) => bulkWriteDecisions(trx, org, bulk, ids, harmless, 'Sweep', actor));
  assert.deepEqual(counts, { created: 1, updated: 2, unchanged: 1 });

  const a = await stored(rowwise);
  const b = await stored(bulk);
  assert.deepEqual(b, a);
  // What that is, spelled out for the CVEs the rule is about.
  const byCve = Object.fromEntries(b.decisions.map((x) => [x.cve_id, x]));
  assert.deepEqual(
    [byCve['CVE-2024-0002'].version, byCve['CVE-2024-0002'].source],
    [1, 'api'],
    'the same fields: left as they were',
  );
  assert.deepEqual(
    [byCve['CVE-2024-0003'].version, byCve['CVE-2024-0003'].review_reasons, byCve['CVE-2024-0003'].flagged],
    [2, [], false],
    'the same fields but flagged for review: written again, the flag cleared',
  );
  assert.deepEqual([byCve['CVE-2024-0004'].version, byCve['CVE-2024-0004'].source], [1, 'bulk']);
  const trail = b.history.filter((x) => x.action === 'bulk');
  assert.deepEqual(
    trail.map((x) => x.cve_id),
    ['CVE-2024-0001', 'CVE-2024-0003', 'CVE-2024-0004'],
  );
  assert.deepEqual(trail[0].before, { ...affected, review_reasons: [] });
  assert.deepEqual(trail[1].before, { ...harmless, review_reasons: ['review again: added to KEV after the decision'] });
  assert.equal(trail[2].before, null);
  for (const x of trail)
    assert.deepEqual(
      [x.after, x.comment, x.actor_member],
      [{ ...harmless, review_reasons: [] }, 'Sweep', actor.member],
    );
});

test('a bulk write that fails stores nothing: no decision and no history row', async () => {
  const e = await env('refused');
  await start(e);
  const was = await stored(e);
  // The last id breaks the table's rule for CVE ids: the whole statement is refused.
  await assert.rejects(
    t.store.db
      .transaction()
      .execute((trx) =>
        bulkWriteDecisions(trx, org, e, ['CVE-2024-0001', 'CVE-2024-0005', 'CVE-BAD'], harmless, null, actor),
      ),
  );
  assert.deepEqual(await stored(e), was);
});

test('an empty selection writes nothing', async () => {
  const e = await env('empty');
  assert.deepEqual(
    await t.store.db.transaction().execute((trx) => bulkWriteDecisions(trx, org, e, [], harmless, null, actor)),
    { created: 0, updated: 0, unchanged: 0 },
  );
  assert.deepEqual(await stored(e), { decisions: [], history: [] });
});

test('a decision belongs to an environment of its organization (one key, migration 1910), and goes with the environment', async () => {
  const e = await env('goes');
  await start(e);
  const other = (await createOrganization(t.store.db, 'Other Plant', 'professional')).id;
  // An environment id of one organization with another organization's id: refused, nothing stored.
  await assert.rejects(
    t.store.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO triage_decisions (org_id, environment_id, cve_id, status) VALUES (${other}, ${e}, 'CVE-2024-0009', 'under_investigation')`.execute(
        trx,
      );
    }),
    /triage_decisions_environment_fkey/,
  );
  await sql`DELETE FROM environments WHERE id = ${e}`.execute(t.store.db);
  assert.deepEqual(await stored(e), { decisions: [], history: [] });
});
