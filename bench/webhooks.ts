// Webhook fan-out: deliveries per second to a loopback receiver that verifies every
// signature over the raw bytes it got, and the memory (RSS, heap) over the run. One organization with WEBHOOKS
// webhooks; ALERTS alerts delivered CONCURRENCY at a time through the real service (claim, sign, egress, record).
// The receiver runs in this process too, so the figure includes its verification work. Never part of `npm test`.
// Usage: npx tsx bench/webhooks.ts   (BENCH_ALERTS default 5000, BENCH_WEBHOOKS 10, BENCH_CONCURRENCY 8)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { freshDb } from '../test/helpers/db.ts';
import { openStore } from '../src/store/db.ts';
import { createMember, createOrganization } from '../src/store/identity.ts';
import { createWebhookService } from '../src/services/webhooks.ts';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/lib/clock.ts';
import type { AlertPayload } from '../src/domain/webhooks.ts';

const ALERTS = Number(process.env.BENCH_ALERTS ?? 5000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const keys = new Map<string, string>(); // path → HMAC key (hex sha256 of the secret)
let verified = 0;
let bad = 0;
const server = http.createServer({ keepAlive: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const key = keys.get(req.url ?? '');
    const sig = key ? `sha256=${createHmac('sha256', key).update(Buffer.concat(chunks)).digest('hex')}` : '';
    if (sig && sig === req.headers['x-vulnintel-signature']) verified++;
    else bad++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;

const db = await freshDb();
// Its own pool, sized for CONCURRENCY × WEBHOOKS deliveries in flight (each holds a connection only per statement).
const store = openStore(db.url, { max: 20, connectionTimeoutMs: 30_000 });
const org = await createOrganization(store.db, 'Bench org', 'enterprise');
await createMember(store.db, org.id, 'bench@example.test', 'owner');
const config = loadConfig({
  VULNINTEL_SECRET_KEY: randomBytes(32).toString('hex'),
  VULNINTEL_WEBHOOK_EGRESS_ALLOW: `127.0.0.1:${port}`,
  LOG_LEVEL: 'silent',
});
const svc = createWebhookService({ db: store.db, clock: systemClock, config });
for (let i = 0; i < WEBHOOKS; i++) {
  const c = await svc.create(
    { orgId: org.id, tier: 'enterprise' },
    { label: `bench ${i}`, url: `http://127.0.0.1:${port}/hook/${i}` },
  );
  keys.set(`/hook/${i}`, createHash('sha256').update(c.secret).digest('hex'));
}

const alert = (n: number): AlertPayload => ({
  event: 'cve.alert',
  version: '1.0',
  timestamp: new Date().toISOString(),
  data: {
    cve_id: `CVE-2026-${100000 + n}`,
    title: 'Stack-based buffer overflow in a PLC web server',
    cvss_score: 9.8,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    patch_status: 'patched',
    kev_flagged: n % 7 === 0,
    epss_score: 0.42,
    sage_priority: 'PATCH NEXT',
    published_at: '2026-11-20T10:00:00Z',
    url: `https://vulnintel.test/cve/CVE-2026-${100000 + n}`,
    executive_summary: 'A remote attacker can execute code on the controller through a crafted HTTP request. '.repeat(
      8,
    ),
    mitigation: 'Restrict access to the web interface; apply the vendor update.',
    causal_boundary: null,
    virtual_patch: null,
    watchlist_match: { entity_type: 'vendor', entity_name: 'Siemens' },
  },
});

const mem = () => ({
  rss_mb: Math.round(process.memoryUsage().rss / 1048576),
  heap_mb: Math.round(process.memoryUsage().heapUsed / 1048576),
});
const samples: { deliveries: number; rss_mb: number; heap_mb: number }[] = [];
let next = 0;
let delivered = 0;
let failed = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < ALERTS) {
      const n = next++;
      for (const r of await svc.deliverAlert(org.id, alert(n))) {
        if (r.outcome === 'delivered') delivered++;
        else failed++;
      }
      if (n % Math.max(1, Math.floor(ALERTS / 10)) === 0) samples.push({ deliveries: delivered + failed, ...mem() });
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
samples.push({ deliveries: delivered + failed, ...mem() });
console.log(
  JSON.stringify(
    {
      alerts: ALERTS,
      webhooks: WEBHOOKS,
      concurrency: CONCURRENCY,
      deliveries: delivered + failed,
      delivered,
      failed,
      verified_by_receiver: verified,
      refused_by_receiver: bad,
      seconds: Number(seconds.toFixed(1)),
      deliveries_per_second: Math.round((delivered + failed) / seconds),
      memory: samples,
    },
    null,
    1,
  ),
);
await svc.close();
await new Promise<void>((r) => server.close(() => r()));
await store.close();
await db.drop();
