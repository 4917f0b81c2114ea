import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { openStore } from '../../src/store/db.ts';
import { importPaths, runPipeline } from '../../src/services/import/pipeline.ts';
import { ImportBusyError } from '../../src/services/import/types.ts';
import { withImportLock } from '../../src/store/ingest.ts';
import { ensureSnapshot } from '../../src/services/import/snapshot.ts';
import { createProgress } from '../../src/ingest/progress.ts';
import { fixture, snapshotFile } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, checksums, docOf, feedDir, runs } from '../helpers/ingest.ts';
import { ENRICHMENT_VERSION } from '../../src/domain/cve-document.ts';
import { Writable } from 'node:stream';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t?.drop();
});

const quiet = { info() {}, warn() {} };

test('import: directory of mixed feeds (plain and .gz) → enriched corpus, runs, vendors; re-import changes nothing', async () => {
  const dir = feedDir([
    ...CATALOGS,
    ...NVD_FIXTURES,
    ...CSAF_FIXTURES,
    fixture('kev', 'kev-cut.json'),
    fixture('epss', 'epss-cut.ssv.gz'),
    fixture('PROVENANCE.md'),
  ]);
  const s = await importPaths(t.store.db, [dir], { log: quiet });
  assert.deepEqual(
    s.skipped.map((x) => x.label.split('/').pop()),
    ['PROVENANCE.md'],
  );
  assert.equal(s.inputs[0].format, 'cwe-xml', 'catalogs are imported first');
  assert.equal(s.inputs.at(-1)!.format, 'kev');
  const ids = (await sql<{ cve_id: string }>`SELECT cve_id FROM cves ORDER BY cve_id`.execute(t.store.db)).rows.map(
    (r) => r.cve_id,
  );
  // Every CVE with a description from some source: NVD records, every CVE of the 7 advisories, the KEV cut.
  assert.ok(ids.includes('CVE-2024-8530') && ids.includes('CVE-2026-8037') && ids.includes('CVE-2022-45793'));
  assert.equal(s.corpus, ids.length);
  const d = (await docOf(t.store.db, 'CVE-2024-21338'))!;
  assert.equal(d.exploitation.exploit_maturity, 'WEAPONIZED');
  assert.deepEqual([d.scoring.epss.score, d.scoring.epss.percentile], [0.5981, 0.99054]); // the fixture row: CVE-2024-21338;0.598100000;0.990540000
  assert.equal(d.title, 'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability');
  assert.deepEqual(d.sources, ['nvd', 'kev', 'epss']);
  const p = (await docOf(t.store.db, 'CVE-2024-8531'))!;
  assert.deepEqual(p.patch.fixed_in, { product: 'Data Center Expert', version: '8.2' });
  assert.deepEqual(
    p.references.cisa_ics_advisories.map((a) => a.advisory_id),
    ['ICSA-24-289-02'],
  );
  assert.ok(p.capec.length > 0);
  const r = await runs(t.store.db);
  assert.deepEqual(
    r.map((x) => [x.stage, x.status, x.source, x.finished]),
    [
      ['ingest', 'succeeded', 'import', true],
      ['enricher', 'succeeded', 'import', true],
    ],
  );
  assert.equal(r[0].rows, s.items);
  assert.equal(r[1].rows, s.documents_written);
  const v = (
    await sql<{
      slug: string;
      name: string;
      cve_count: number;
      aliases: string[];
    }>`SELECT slug, name, cve_count, aliases FROM vendors WHERE slug IN ('siemens','schneider-electric') ORDER BY slug`.execute(
      t.store.db,
    )
  ).rows;
  assert.equal(v[0].name, 'Schneider Electric');
  assert.ok(v[0].aliases.includes('schneider-electric'));
  assert.equal(v[1].name, 'Siemens');
  const siemensCount = (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves WHERE 'siemens' = ANY(vendor_slugs)`.execute(
      t.store.db,
    )
  ).rows[0].n;
  assert.equal(v[1].cve_count, siemensCount);

  const { loadCapecSource } = await import('../../src/store/ingest.ts');
  assert.deepEqual(await loadCapecSource(t.store.db), {
    catalog: 'MITRE CAPEC (STIX 2.1)',
    version: '3.9',
    mapping:
      'CWE → CAPEC via the CAPEC catalog Related_Weaknesses of each attack pattern (deprecated/obsolete patterns excluded)',
  });
  const before = await checksums(t.store.db);
  const again = await importPaths(t.store.db, [dir], { log: quiet });
  assert.equal(again.changed_sources, 0);
  assert.equal(again.documents_written, 0);
  assert.deepEqual(await checksums(t.store.db), before, 'table checksums equal after re-importing the same files');
});

test('a feed arriving later re-enriches the CVEs it touches (KEV after NVD); unrelated CVEs are untouched', async () => {
  const db2 = await freshDb();
  try {
    await importPaths(
      db2.store.db,
      [...CATALOGS, fixture('nvd', 'CVE-2024-49138.json'), fixture('nvd', 'CVE-2023-0228.json')],
      { log: quiet },
    );
    const before = (await docOf(db2.store.db, 'CVE-2024-49138'))!;
    const other = await sql<{ enriched_at: Date }>`SELECT enriched_at FROM cves WHERE cve_id = 'CVE-2023-0228'`.execute(
      db2.store.db,
    );
    assert.equal(before.exploitation.kev_flagged, false);
    assert.equal(before.exploitation.exploit_maturity, 'FUNCTIONAL');
    const s = await importPaths(db2.store.db, [fixture('kev', 'kev-cut.json')], { log: quiet });
    assert.equal(s.full_reenrichment, false);
    const afterDoc = (await docOf(db2.store.db, 'CVE-2024-49138'))!;
    assert.equal(afterDoc.exploitation.kev_flagged, true);
    assert.equal(afterDoc.exploitation.exploit_maturity, 'WEAPONIZED');
    assert.equal(afterDoc.description, before.description, 'NVD text keeps precedence');
    assert.equal(
      afterDoc.title,
      'Microsoft Windows Common Log File System (CLFS) Driver Heap-Based Buffer Overflow Vulnerability',
    );
    const other2 = await sql<{
      enriched_at: Date;
    }>`SELECT enriched_at FROM cves WHERE cve_id = 'CVE-2023-0228'`.execute(db2.store.db);
    assert.equal(other2.rows[0].enriched_at.toISOString(), other.rows[0].enriched_at.toISOString());
  } finally {
    await db2.drop();
  }
});

test('catalogs imported after the CVEs re-enrich the whole corpus (titles and CAPEC from the new CWE/CAPEC data)', async () => {
  const db2 = await freshDb();
  try {
    await importPaths(db2.store.db, [fixture('nvd', 'CVE-2023-0228.json')], { log: quiet });
    const bare = (await docOf(db2.store.db, 'CVE-2023-0228'))!;
    assert.equal(bare.title, 'Vulnerability in ABB Symphony Plus S+ Operations');
    assert.deepEqual(bare.capec, []);
    const s = await importPaths(db2.store.db, CATALOGS, { log: quiet });
    assert.equal(s.full_reenrichment, true);
    const full = (await docOf(db2.store.db, 'CVE-2023-0228'))!;
    assert.equal(full.title, 'Improper Authentication in ABB Symphony Plus S+ Operations');
    assert.ok(full.capec.some((c) => c.capec_id === 114 && c.via_cwe.includes(287)));
    const s2 = await importPaths(db2.store.db, CATALOGS, { log: quiet });
    assert.equal(s2.full_reenrichment, false, 'unchanged catalogs do not re-enrich');
  } finally {
    await db2.drop();
  }
});

test('single flight: a second import while one holds the lock is refused; a stale running run is marked failed at the next start', async () => {
  const db2 = await freshDb();
  try {
    await sql`INSERT INTO ingest_runs (stage, source, status, rows) VALUES ('ingest', 'import', 'running', 7)`.execute(
      db2.store.db,
    );
    let inner: unknown = null;
    // A refused run still ends what its inputs' reading holds (a feed thread primed before the run).
    let closed = 0;
    const input = {
      label: 'primed',
      format: 'cve5-jsonl' as const,
      items: async function* () {},
      close: async () => void closed++,
    };
    await withImportLock(db2.store.db, async () => {
      inner = await runPipeline(db2.store.db, [input, { ...input, label: 'second file, same thread' }]).catch((e) => e);
    });
    assert.ok(inner instanceof ImportBusyError);
    assert.equal(closed, 1, 'the shared close ran once');
    assert.equal((await runs(db2.store.db))[0].status, 'running', 'the refused import did not touch the runs');
    await importPaths(db2.store.db, [fixture('nvd', 'CVE-2024-9124.json')], { log: quiet });
    const r = await runs(db2.store.db);
    assert.equal(r[0].status, 'failed');
    assert.match(r[0].error!, /interrupted/);
    assert.deepEqual(
      r.slice(1).map((x) => x.status),
      ['succeeded', 'succeeded'],
    );
  } finally {
    await db2.drop();
  }
});

test('ensureSnapshot imports the bundled snapshot once into an empty corpus, with progress, and never again', async () => {
  const db2 = await freshDb();
  try {
    // A small snapshot folder laid out like snapshot/ (same loader, real files).
    const dir = feedDir([
      [snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'kev/known_exploited_vulnerabilities.json'],
      [snapshotFile('README.md'), 'README.md'],
      [fixture('nvd', 'CVE-2024-21338.json'), 'nvd/CVE-2024-21338.json'],
    ]);
    const lines: string[] = [];
    const out = new Writable({
      write(c, _e, cb) {
        lines.push(String(c));
        cb();
      },
    });
    const s = await ensureSnapshot(
      db2.store,
      { snapshotDir: dir, autoImportSnapshot: true },
      quiet,
      createProgress(out, { tty: false, intervalMs: 0 }),
    );
    assert.equal(s!.corpus, 1662);
    assert.ok(
      lines.some((l) => /^import: file \d\/2 kev known_exploited_vulnerabilities\.json: \d+ records/.test(l)),
      lines.join(''),
    );
    assert.equal((await runs(db2.store.db)).filter((r) => r.source === 'snapshot').length, 2);
    assert.equal(await ensureSnapshot(db2.store, { snapshotDir: dir, autoImportSnapshot: true }, quiet), null);
    assert.equal((await runs(db2.store.db)).length, 2);
    // KEV count equals the catalog's.
    const kev = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves WHERE kev_flagged`.execute(db2.store.db))
      .rows[0].n;
    assert.equal(kev, 1662);
  } finally {
    await db2.drop();
  }
});

test('two instances starting on one empty database: the second waits for the first snapshot import past its statement timeout, then imports nothing', async () => {
  // A blocking pg_advisory_lock for the import lock on the server pool would be cancelled by statement_timeout
  // after 15 s: the second API replica would die with "canceling statement due to statement timeout". Here the
  // server pool's statement timeout is scaled down to 200 ms; its client-side deadline (2 s) only guards against a
  // dead connection, and stays above what one short query can take on a loaded machine.
  const db2 = await freshDb();
  const server2 = openStore(db2.url, { statementTimeoutMs: 200, queryDeadlineMs: 2000, max: 10 });
  try {
    const dir = feedDir([
      [snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'kev/known_exploited_vulnerabilities.json'],
      [fixture('nvd', 'CVE-2024-21338.json'), 'nvd/CVE-2024-21338.json'],
    ]);
    const config = { snapshotDir: dir, autoImportSnapshot: true };
    let holding = false;
    const first = ensureSnapshot(
      db2.store,
      config,
      quiet,
      createProgress(
        new Writable({
          write(_c, _e, cb) {
            cb();
          },
        }),
        { tty: false },
      ),
    );
    // The first instance holds the import lock before the second starts; its import outlasts the second's timeouts.
    for (let i = 0; i < 500 && !holding; i++) {
      holding =
        (
          await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 7224101 AND granted`.execute(
            db2.store.db,
          )
        ).rows[0].n > 0;
      if (!holding) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(holding, 'the first import took the lock');
    const logged: string[] = [];
    const second = ensureSnapshot(
      server2,
      config,
      { info: (_o: unknown, m?: string) => void logged.push(m ?? ''), warn() {} },
      createProgress(
        new Writable({
          write(_c, _e, cb) {
            cb();
          },
        }),
        { tty: false },
      ),
    );
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a!.corpus, 1662);
    assert.equal(b, null, 'the second instance imported nothing');
    assert.ok(logged.includes('the bundled snapshot was imported by another instance meanwhile'), logged.join('; '));
    assert.deepEqual(
      (await runs(db2.store.db)).map((r) => [r.source, r.status]),
      [
        ['snapshot', 'succeeded'],
        ['snapshot', 'succeeded'],
      ],
    );
  } finally {
    await server2.close();
    await db2.drop();
  }
});

test('progress: a redrawn bar on a terminal', () => {
  const chunks: string[] = [];
  const out = Object.assign(
    new Writable({
      write(c, _e, cb) {
        chunks.push(String(c));
        cb();
      },
    }),
    { isTTY: true, columns: 200 },
  );
  let now = 0;
  const p = createProgress(out, { now: () => now });
  p.file(1, 4, '/x/kev.json', 'kev');
  now = 2000;
  p.items(4000);
  p.end();
  assert.match(chunks[0], /^\r\[#{6}\.{18}\] 1\/4 kev kev\.json {2}0 records/);
  // eslint-disable-next-line no-control-regex -- the progress line ends with the ANSI erase-line sequence
  assert.match(chunks[1], /^\r\[#{6}\.{18}\] 1\/4 kev kev\.json {2}4,000 records {2}2,000\/s\x1b\[K$/);
  assert.equal(chunks.at(-1), '\n');
});

test('configured OpenAI-compatible analysis through the egress policy: used on import; a failing provider keeps the stored analysis, pending', async () => {
  const { createServer } = await import('node:http');
  const { providerFromConfig } = await import('../../src/services/import/analysis-provider.ts');
  const { createEgress } = await import('../../src/lib/egress.ts');
  let fail = false;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (fail) {
        res.statusCode = 500;
        res.end('down');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          choices: [
            {
              message: {
                content: JSON.stringify({
                  executive_summary: 'CVE-2024-9124 affects PowerFlex 6000T.',
                  ics_context: 'Drive controllers are OT assets.',
                  remediation_guidance: 'Apply the vendor update.',
                }),
              },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const db2 = await freshDb();
  const egress = createEgress({ allowList: [`127.0.0.1:${port}`] });
  try {
    const a = providerFromConfig(
      {
        analysis: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'loop-model', apiKey: 'secret' },
        egressAllowList: [],
      },
      egress,
    )!;
    await importPaths(db2.store.db, [fixture('nvd', 'CVE-2024-9124.json')], { log: quiet, provider: a.provider });
    const first = (await docOf(db2.store.db, 'CVE-2024-9124'))!;
    assert.equal(first.sage.model, 'loop-model');
    assert.equal(first.sage.status, 'ready');
    assert.equal(first.sage.executive_summary, 'CVE-2024-9124 affects PowerFlex 6000T.');
    fail = true;
    // An EPSS score appears and the CWE catalog arrives: the whole corpus is re-enriched, the provider is down.
    const { sql: q } = await import('kysely');
    await q`INSERT INTO epss_scores (cve_id, epss, percentile) VALUES ('CVE-2024-9124', 0.5, 0.95)`.execute(
      db2.store.db,
    );
    await importPaths(db2.store.db, [fixture('nvd', 'CVE-2024-9124.json'), CATALOGS[0]], {
      log: quiet,
      provider: a.provider,
    });
    const second = (await docOf(db2.store.db, 'CVE-2024-9124'))!;
    assert.equal(second.scoring.epss.percentile, 0.95, 'the record was re-enriched');
    assert.deepEqual({ ...second.sage, status: 'ready' }, first.sage, 'previous analysis kept');
    assert.equal(second.sage.status, 'pending');
    assert.equal(
      providerFromConfig({ analysis: { baseUrl: null, model: null, apiKey: null }, egressAllowList: [] }),
      null,
      'not configured: grounded analysis',
    );
  } finally {
    await egress.close();
    await new Promise<void>((r) => server.close(() => r()));
    await db2.drop();
  }
});

test('KEV is a whole catalog: entries a newer catalog no longer lists lose their KEV facts; a rejected NVD record leaves the corpus', async () => {
  const db2 = await freshDb();
  try {
    await importPaths(
      db2.store.db,
      [...CATALOGS, snapshotFile('kev', 'known_exploited_vulnerabilities.json'), fixture('nvd', 'CVE-2024-21338.json')],
      { log: quiet },
    );
    await importPaths(db2.store.db, [fixture('nvd', 'nvd-api-2.0-page.assembled.json')], { log: quiet });
    const count = async (where: string) =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves WHERE ${sql.raw(where)}`.execute(db2.store.db))
        .rows[0].n;
    assert.equal(await count('kev_flagged'), 1662);
    assert.equal((await docOf(db2.store.db, 'CVE-2022-26925'))!.exploitation.kev_flagged, true);
    // The catalog now lists 5 entries only (the cut): every other KEV fact goes away.
    const s = await importPaths(db2.store.db, [fixture('kev', 'kev-cut.json')], { log: quiet });
    assert.equal(await count('kev_flagged'), 5);
    assert.ok(s.documents_removed > 1600, 'KEV-only CVEs have no description left and leave the corpus');
    const win = (await docOf(db2.store.db, 'CVE-2022-26925'))!;
    assert.equal(win.exploitation.kev_flagged, false, 'described by NVD: stays, without KEV');
    assert.equal(win.exploitation.exploit_maturity, 'NONE');
    assert.equal((await docOf(db2.store.db, 'CVE-2024-21338'))!.exploitation.kev_flagged, true);
    // NVD later rejects a CVE: the empty NVD record replaces the old one and the CVE leaves the corpus.
    const { readFileSync, writeFileSync, mkdtempSync } = await import('node:fs');
    const rec = JSON.parse(readFileSync(fixture('nvd', 'CVE-2023-0228.json'), 'utf8'));
    const dir = mkdtempSync('/tmp/vi-rejected-');
    await importPaths(db2.store.db, [fixture('nvd', 'CVE-2023-0228.json')], { log: quiet });
    assert.ok(await docOf(db2.store.db, 'CVE-2023-0228'));
    writeFileSync(
      `${dir}/CVE-2023-0228.json`,
      JSON.stringify({
        ...rec,
        vulnStatus: 'Rejected',
        descriptions: [{ lang: 'en', value: 'Rejected reason: this candidate was withdrawn by its CNA.' }],
      }),
    );
    await importPaths(db2.store.db, [dir], { log: quiet });
    assert.equal(await docOf(db2.store.db, 'CVE-2023-0228'), null);
  } finally {
    await db2.drop();
  }
});

test('a corpus built with older enrichment rules is re-enriched by the next import (enrichment version in the key)', async () => {
  const db2 = await freshDb();
  try {
    await importPaths(db2.store.db, [...CATALOGS, fixture('kev', 'kev-cut.json')], { log: quiet });
    const key = await sql<{ value: string }>`SELECT value FROM ingest_state WHERE key = 'corpus_catalogs'`.execute(
      db2.store.db,
    );
    assert.match(key.rows[0].value, new RegExp(`^${ENRICHMENT_VERSION.replace('.', '\\.')}:`));
    // As a corpus written by the previous rules (key without a version; documents without the card severity).
    await sql`UPDATE ingest_state SET value = regexp_replace(value, '^[^:]*:', '') WHERE key = 'corpus_catalogs'`.execute(
      db2.store.db,
    );
    await sql`UPDATE cves SET doc = doc - 'severity', doc_hash = md5(doc::text)`.execute(db2.store.db);
    const s = await importPaths(db2.store.db, [fixture('kev', 'kev-cut.json')], { log: quiet });
    assert.equal(s.full_reenrichment, true);
    const doc = (await docOf(db2.store.db, 'CVE-2024-21338'))!;
    assert.ok('severity' in doc, 'documents rebuilt with the current rules');
    const s2 = await importPaths(db2.store.db, [fixture('kev', 'kev-cut.json')], { log: quiet });
    assert.equal(s2.full_reenrichment, false);
  } finally {
    await db2.drop();
  }
});

test('a CVE number as long as the CVE record schema allows (19 digits, past a bigint) is imported and read back', async () => {
  const record = JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-23897.json'), 'utf8'));
  const ids = ['CVE-2024-9999999999999999999', 'CVE-2024-9223372036854775808', 'CVE-2024-0000000000000001234'];
  const dir = feedDir([]);
  for (const id of ids) {
    const r = structuredClone(record);
    r.cveMetadata.cveId = id;
    writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(r));
  }
  const s = await importPaths(t.store.db, [dir], { log: quiet });
  assert.deepEqual(s.skipped, []);
  assert.equal(s.documents_written, 3);
  const rows = (
    await sql<{ cve_id: string; d: string }>`
    SELECT cve_id, doc->>'cve_id' AS d FROM cves WHERE cve_id = ANY(${ids}::text[]) ORDER BY cve_id`.execute(t.store.db)
  ).rows;
  assert.deepEqual(
    rows.map((r) => r.cve_id),
    [...ids].sort(),
  );
  assert.deepEqual(
    rows.map((r) => r.d),
    [...ids].sort(),
  );
});
