// Full-text contention: 40 connections of distinct broad searches (every request a response-cache miss: ten
// common phrases × 200 pages) for 12 s, while one client reads CVE details every 50 ms and times them.
// Usage: start a server on a loaded corpus, then `npx tsx bench/search-contention.ts [http://127.0.0.1:8099]`.
import autocannon from 'autocannon';

const base = process.argv[2] ?? 'http://127.0.0.1:8099';
const words = [
  'out-of-bounds',
  'buffer overflow',
  'remote code execution',
  'denial of service',
  'memory corruption',
  'use after free',
  'privilege escalation',
  'information disclosure',
  'authentication bypass',
  'command injection',
];
let i = 0;
const run = new Promise<autocannon.Result>((resolve, reject) =>
  autocannon(
    {
      url: base,
      connections: 40,
      duration: 12,
      requests: [
        {
          setupRequest: (r) => ({
            ...r,
            path: `/api/v1/cves?q=${encodeURIComponent(words[i % words.length])}&page=${1 + (Math.floor(i++ / words.length) % 200)}`,
          }),
        },
      ],
    },
    (err, res) => (err ? reject(err) : resolve(res)),
  ),
);
const lat: number[] = [];
const ids = ['CVE-2021-44228', 'CVE-2024-3400', 'CVE-2023-4966', 'CVE-2022-22965', 'CVE-2019-0708'];
const t0 = Date.now();
await new Promise((r) => setTimeout(r, 2000));
for (let k = 0; Date.now() - t0 < 11_000; k++) {
  const s = performance.now();
  const res = await fetch(`${base}/api/v1/cves/${ids[k % ids.length]}?n=${k}`);
  await res.arrayBuffer();
  lat.push(performance.now() - s);
  await new Promise((r) => setTimeout(r, 50));
}
const r = await run;
lat.sort((a, b) => a - b);
const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(1);
console.log(
  JSON.stringify({
    search_rps: r.requests.average,
    search_p50_ms: r.latency.p50,
    search_p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    detail_samples: lat.length,
    detail_p50_ms: q(0.5),
    detail_p90_ms: q(0.9),
    detail_max_ms: lat[lat.length - 1].toFixed(1),
  }),
);
