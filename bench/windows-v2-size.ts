// The v2 answer at its own limit, on real data (issue "the v2 answer must be usable at its own limit"): the 190 MSRC
// documents and the 44,130 CVE Record 5 records of ../shared/data imported by each checkout's own `vulnintel import`
// (so each side's enrichment writes its own references), then 200 hosts of five common builds, 40 each, years
// behind, sent to POST /api/v2/assets/correlate: the default call and include_cleared, plain and gzip, with
// /health/ping every 25 ms meanwhile. The code before and after a change run side by side in one run, each in its
// own server process on its own database. Never part of `npm test`.
// Usage: node --import tsx bench/windows-v2-size.ts [--before DIR] (VI_DB_PREFIX names its databases: vi_bench by default)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import path from 'node:path';
import os from 'node:os';
import pg from 'pg';
import { pinger, q, startServer, stopServer, type Server } from './v2-server.ts';

const arg = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : null;
};
const BEFORE = arg('before');
const shared = ['../shared/data', '../../shared/data', '/work/shared/data']
  .map((p) => path.resolve(p))
  .find((p) => existsSync(p))!;
const SOURCES = [path.join(shared, 'cve5', 'vulnrichment-cve5.jsonl.gz'), path.join(shared, 'msrc-cvrf')];
const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Five common builds, each about a year or more behind its current update: most of their CVEs are open. */
const BUILDS = [
  {
    os_product: 'Windows Server 2019 Datacenter',
    edition_id: 'ServerDatacenter',
    installation_type: 'Server',
    os_build: '10.0.17763.4974',
  },
  {
    os_product: 'Windows Server 2022 Standard',
    edition_id: 'ServerStandard',
    installation_type: 'Server',
    os_build: '10.0.20348.2031',
  },
  {
    os_product: 'Windows Server 2016 Standard',
    edition_id: 'ServerStandard',
    installation_type: 'Server',
    os_build: '10.0.14393.6351',
  },
  {
    os_product: 'Windows 10 Enterprise',
    edition_id: 'Enterprise',
    installation_type: 'Client',
    os_build: '10.0.19045.3570',
  },
  {
    os_product: 'Windows 11 Enterprise',
    edition_id: 'Enterprise',
    installation_type: 'Client',
    os_build: '10.0.22631.2428',
  },
];
const hosts = Array.from({ length: 200 }, (_, i) => ({
  asset_id: `size${String(i).padStart(4, '0')}b7e1d2c3`,
  ...BUILDS[i % BUILDS.length],
  display_version: '',
  architecture: 'x64',
  installed_kbs: [],
  kb_source: '',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
}));

function dbUrlOf(name: string): string {
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One call; the body is counted as it arrives and never held. */
function call(
  s: Server,
  body: unknown,
  encoding: string | null,
): Promise<{ status: number; ms: number; wire: number; bytes: number; tail: string }> {
  const payload = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: s.port,
        path: '/api/v2/assets/correlate',
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
          enc === 'gzip' ? res.pipe(zlib.createGunzip()) : enc === 'br' ? res.pipe(zlib.createBrotliDecompress()) : res;
        let bytes = 0;
        let tail = Buffer.alloc(0);
        decoded.on('data', (c: Buffer) => {
          bytes += c.length;
          tail = Buffer.concat([tail, c]).subarray(-400);
        });
        decoded.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, wire, bytes, tail: tail.toString() }),
        );
        decoded.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Where the bytes of an answer go: for each field of the per-CVE object (spec §2.7; `fix.*` and `references.*` by
 * member) the bytes of `"name":value,` summed over every CVE of every host, and the rest of the answer.
 */
function fieldBytes(
  body: { data: { assets: { cves: Record<string, unknown>[] }[] } },
  total: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (k: string, v: unknown) => {
    out[k] =
      (out[k] ?? 0) + Buffer.byteLength(JSON.stringify(k.split('.').pop())) + 2 + Buffer.byteLength(JSON.stringify(v));
  };
  let cves = 0;
  for (const a of body.data.assets) {
    for (const c of a.cves) {
      cves++;
      for (const [k, v] of Object.entries(c)) {
        if ((k === 'fix' || k === 'references') && v && typeof v === 'object') {
          out[`${k} (braces and key)`] = (out[`${k} (braces and key)`] ?? 0) + Buffer.byteLength(JSON.stringify(k)) + 3;
          for (const [k2, v2] of Object.entries(v)) add(`${k}.${k2}`, v2);
        } else add(k, v);
      }
      out['cve object braces'] = (out['cve object braces'] ?? 0) + 2;
    }
  }
  const perCve = Object.values(out).reduce((a, b) => a + b, 0);
  return { ...out, cves, per_cve_bytes: Math.round(perCve / Math.max(cves, 1)), rest_of_answer: total - perCve };
}

/** One call held whole (one host per build: each build's 40 hosts share one answer), broken down by field. */
async function breakdown(s: Server, includeCleared: boolean): Promise<Record<string, number>> {
  const five = BUILDS.map((_, i) => hosts[i]);
  const r = await fetch(`http://127.0.0.1:${s.port}/api/v2/assets/correlate`, {
    method: 'POST',
    headers: { ...s.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ windows_hosts: five, ...(includeCleared ? { options: { include_cleared: true } } : {}) }),
  });
  const text = await r.text();
  return fieldBytes(JSON.parse(text), Buffer.byteLength(text));
}

async function measure(label: string, root: string, c: pg.Client) {
  const name = `${process.env.VI_DB_PREFIX ?? 'vi_bench'}_v2z_${label}_${process.pid}`;
  await c.query(`CREATE DATABASE ${name}`);
  const dbUrl = dbUrlOf(name);
  try {
    const t0 = performance.now();
    const imp = spawnSync(process.execPath, [path.join(root, 'bin/vulnintel.js'), 'import', ...SOURCES], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: dbUrl, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      maxBuffer: 64e6,
    });
    if (imp.status !== 0) throw new Error(`${label} import failed: ${imp.stderr.slice(-2000)}`);
    const importS = Math.round((performance.now() - t0) / 1000);
    console.error(JSON.stringify({ code: label, import_s: importS }));
    const s = await startServer(root, dbUrl);
    const out: Record<string, unknown> = { code: label, import_s: importS };
    try {
      await call(s, { windows_hosts: hosts.slice(0, 5) }, null); // builds the evaluation index
      out.field_bytes_5_hosts = { default: await breakdown(s, false), include_cleared: await breakdown(s, true) };
      console.error(JSON.stringify({ code: label, field_bytes_5_hosts: out.field_bytes_5_hosts }));
      for (const includeCleared of [false, true]) {
        for (const enc of [null, 'gzip']) {
          const stopPing = pinger(s);
          const r = await call(
            s,
            { windows_hosts: hosts, ...(includeCleared ? { options: { include_cleared: true } } : {}) },
            enc,
          );
          const lat = await stopPing();
          const key = `${includeCleared ? 'include_cleared' : 'default'}_${enc ?? 'identity'}`;
          out[key] = {
            status: r.status,
            complete: /"meta":\{.*\}\}$/.test(r.tail),
            ms: Math.round(r.ms),
            json_bytes: r.bytes,
            wire_bytes: r.wire,
            ping_p50_ms: q(lat, 0.5),
            ping_p99_ms: q(lat, 0.99),
            pings: lat.length,
          };
          console.error(JSON.stringify({ code: label, [key]: out[key] }));
        }
      }
    } finally {
      await stopServer(s);
    }
    return out;
  } finally {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const c = new pg.Client({ connectionString: admin });
await c.connect();
try {
  const results: Record<string, unknown>[] = [];
  if (BEFORE) results.push(await measure('before', path.resolve(BEFORE), c));
  results.push(await measure('after', path.resolve('.'), c));
  const report = {
    hosts: hosts.length,
    builds: BUILDS.map((b) => `${b.os_product} ${b.os_build}`),
    sources: SOURCES,
    cpus: os.cpus().length,
    load_average_1m: Number(os.loadavg()[0].toFixed(1)),
    results,
  };
  console.log(JSON.stringify(report, null, 2));
  mkdirSync('bench/out', { recursive: true });
  writeFileSync('bench/out/windows-v2-size.json', JSON.stringify(report, null, 2));
} finally {
  await c.end();
}
