// API v2 at the contract's limits (the v2 p50 and the 200-host answer): the code before and after a change, side
// by side in one run, each in its own server process on the same database, driven over real HTTP on 127.0.0.1.
//  - mixed: 200 hosts of bench/windows-correlate-hosts.ts with JSON defaults (the v2 p50, before/after);
//  - repro: 200 hosts of Windows Server 2019 at 10.0.17763.4974 with include_cleared (years behind: most CVEs open), plain
//    and with Accept-Encoding br and gzip; /health/ping is called every 25 ms meanwhile (event-loop stalls), and
//    the server's peak RSS is read from /proc (VmHWM, reset before each scenario).
// Corpus: all MSRC documents of ../shared/data/msrc-cvrf, and for each of their CVEs a corpus row whose
// references block has the MSRC advisory and OTHER_REFS other references (synthetic: the full NVD corpus is not
// on this machine; the count is chosen so a CVE weighs what a 367k-corpus measurement implies).
// Each scenario's figures go to stderr as it completes; the whole report to stdout and bench/out/windows-v2-stream.json.
// Usage: node --import tsx bench/windows-v2-stream.ts [--before DIR] [--calls N] [--refs N]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import path from 'node:path';
import os from 'node:os';
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { importMsrcDocuments } from '../src/services/import/msrc-documents.ts';
import { benchHosts } from './windows-correlate-hosts.ts';
import { pinger, q, startServer, stopServer, type Server } from './v2-server.ts';

const arg = (name: string, dflt: string | null) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const BEFORE = arg('before', null);
const CALLS = Number(arg('calls', '7'));
const OTHER_REFS = Number(arg('refs', '10'));
const MSRC = path.resolve('..', '..', 'shared', 'data', 'msrc-cvrf');
const msrcDir = existsSync(MSRC) ? MSRC : '/work/shared/data/msrc-cvrf';

const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `vi_bench_v2s_${process.pid}`;
const adminClient = new pg.Client({ connectionString: admin });
await adminClient.connect();
await adminClient.query(`CREATE DATABASE ${dbName}`);
const u = new URL(admin);
u.pathname = `/${dbName}`;
const dbUrl = u.toString();

async function prepare() {
  const store = openStore(dbUrl);
  await migrate(store.pool, { log: () => {} });
  const imported = await importMsrcDocuments(store.db, [msrcDir]);
  // One corpus row per MSRC CVE, with a references block of the §2.5 shape.
  const refs = Array.from({ length: OTHER_REFS }, (_, i) => i);
  const { rowCount } = await store.pool.query(
    `
    INSERT INTO cves (cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score, kev_flagged, exploit_maturity,
      poc_available, has_public_exploit, patch_status, ics_relevant, ics_relevance, vendor_count, vendor_slugs, protocols, published_at,
      enriched_at, search, doc, doc_hash)
    SELECT f.cve_id, split_part(f.cve_id, '-', 2)::int, split_part(f.cve_id, '-', 3)::bigint, 'BS-' || f.cve_id, f.cve_id || ' Windows vulnerability',
      'HIGH', 7.8, 6.5, 0.02, false, 'UNPROVEN', false, false, 'PATCHED', false, 0, 1, '{microsoft}', '{}', now(), now(), ''::tsvector,
      jsonb_build_object('references', jsonb_build_object(
        'nvd_url', 'https://nvd.nist.gov/vuln/detail/' || f.cve_id,
        'cve_org_url', 'https://www.cve.org/CVERecord?id=' || f.cve_id,
        'breachspider_url', 'https://vulnintel.test/cve/' || f.cve_id,
        'vendor_advisories', jsonb_build_array(jsonb_build_object('url', 'https://msrc.microsoft.com/update-guide/vulnerability/' || f.cve_id, 'tags', jsonb_build_array('Patch', 'Vendor Advisory'), 'provided_by', 'secure@microsoft.com')),
        'cisa_ics_advisories', '[]'::jsonb,
        'other_references', (SELECT coalesce(jsonb_agg(jsonb_build_object('url', 'https://www.zerodayinitiative.com/advisories/ZDI-' || split_part(f.cve_id, '-', 2) || '-' || (i * 97 + split_part(f.cve_id, '-', 3)::int % 1000) || '/',
          'tags', jsonb_build_array('Third Party Advisory', 'VDB Entry'), 'provided_by', 'secure@microsoft.com')), '[]'::jsonb) FROM unnest($1::int[]) i),
        'other_references_total', $2::int)), md5(f.cve_id)
    FROM (SELECT DISTINCT cve_id FROM msrc_fixes WHERE cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$') f
    ON CONFLICT (cve_id) DO NOTHING`,
    [refs, OTHER_REFS],
  );
  await store.close();
  return { documents: imported.documents, corpus_rows: rowCount };
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}
function resetPeak(pid: number) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    /* not permitted: VmHWM then covers the whole run */
  }
}

/** One call; the body is counted as it arrives (a multi-GB answer is never held), its last bytes kept. */
function call(
  s: Server,
  pathname: string,
  body: unknown,
  encoding: string | null,
): Promise<{ status: number; ms: number; wire: number; bytes: number; tail: string; head: string; json?: unknown }> {
  const payload = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: s.port,
        path: pathname,
        method: 'POST',
        headers: {
          ...s.auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(encoding ? { 'accept-encoding': encoding } : {}),
        },
      },
      (res) => {
        let wire = 0;
        res.on('data', (c: Buffer) => {
          wire += c.length;
        });
        const enc = res.headers['content-encoding'];
        const decoded =
          enc === 'br' ? res.pipe(zlib.createBrotliDecompress()) : enc === 'gzip' ? res.pipe(zlib.createGunzip()) : res;
        let bytes = 0;
        let head = '';
        let tail = Buffer.alloc(0);
        const keep: Buffer[] = [];
        decoded.on('data', (c: Buffer) => {
          bytes += c.length;
          if (head.length < 200) head += c.subarray(0, 200).toString();
          tail = Buffer.concat([tail, c]).subarray(-4000);
          if (bytes < 256e6) keep.push(c);
        });
        decoded.on('end', () => {
          const ms = performance.now() - t0;
          const out = { status: res.statusCode ?? 0, ms, wire, bytes, tail: tail.toString(), head };
          resolve(bytes < 256e6 ? { ...out, json: JSON.parse(Buffer.concat(keep).toString()) } : out);
        });
        decoded.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function measure(label: string, root: string) {
  const s = await startServer(root, dbUrl);
  const out: Record<string, unknown> = { code: label };
  try {
    const mixed = { windows_hosts: benchHosts() };
    const warm = await call(s, '/api/v2/assets/correlate', mixed, null); // builds the index
    if (warm.status !== 200) throw new Error(`warm-up: HTTP ${warm.status} ${warm.head}`);
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < CALLS; i++) {
      const r = await call(s, '/api/v2/assets/correlate', mixed, null);
      times.push(r.ms);
      bytes = r.bytes;
    }
    times.sort((a, b) => a - b);
    out.mixed = {
      p50_ms: q(times, 0.5),
      p95_ms: q(times, 0.95),
      response_bytes: bytes,
      bytes_per_host: Math.round(bytes / 200),
    };
    console.error(JSON.stringify({ code: label, mixed: out.mixed }));
    const repro = {
      windows_hosts: Array.from({ length: 200 }, (_, i) => ({
        asset_id: `repro${String(i).padStart(4, '0')}c0ffee`,
        os_product: 'Windows Server 2019 Datacenter',
        edition_id: 'ServerDatacenter',
        display_version: '1809',
        os_build: '10.0.17763.4974',
        architecture: 'x64',
        installation_type: 'Server',
        installed_kbs: [],
        kb_source: '',
        esu_enrolled: '',
        collected_at: '2026-07-01T08:00:00Z',
      })),
      options: { include_cleared: true },
    };
    for (const enc of [null, 'br', 'gzip']) {
      resetPeak(s.proc.pid!);
      const stopPing = pinger(s);
      const r = await call(s, '/api/v2/assets/correlate', repro, enc).catch((e: Error) => ({
        status: -1,
        ms: NaN,
        wire: 0,
        bytes: 0,
        tail: e.message,
        head: '',
      }));
      const lat = await stopPing();
      const ok = r.status === 200 && /"meta":\{"api_version":"2".*\}\}$/.test(r.tail);
      out[`repro_${enc ?? 'identity'}`] = {
        status: r.status,
        complete_json_tail: ok,
        ms: Math.round(r.ms),
        response_bytes: r.bytes,
        bytes_per_host: Math.round(r.bytes / 200),
        wire_bytes: r.wire,
        ping_p50_ms: q(lat, 0.5),
        ping_p99_ms: q(lat, 0.99),
        ping_max_ms: q(lat, 1),
        pings: lat.length,
        server_peak_rss_mb: peakRssMb(s.proc.pid!),
        error: r.status === 200 ? undefined : r.tail.slice(0, 200),
      };
      console.error(JSON.stringify({ code: label, [`repro_${enc ?? 'identity'}`]: out[`repro_${enc ?? 'identity'}`] }));
    }
  } finally {
    await stopServer(s);
  }
  return out;
}

try {
  const prep = await prepare();
  const results: Record<string, unknown>[] = [];
  if (BEFORE) results.push(await measure('before', path.resolve(BEFORE)));
  results.push(await measure('after', path.resolve('.')));
  const report = {
    ...prep,
    calls: CALLS,
    other_references_per_cve: OTHER_REFS,
    cpus: os.cpus().length,
    load_average_1m: Number(os.loadavg()[0].toFixed(1)),
    results,
  };
  console.log(JSON.stringify(report, null, 2));
  mkdirSync('bench/out', { recursive: true });
  writeFileSync('bench/out/windows-v2-stream.json', JSON.stringify(report, null, 2));
} finally {
  await adminClient.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await adminClient.end();
}
