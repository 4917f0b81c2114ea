// A signed-in web app with something on every page, for the accessibility test and the screenshots
// (tools/web-screenshots.ts): the NVD, CWE/CAPEC and CISA ICS fixtures imported; an organization with an environment
// of real ICS nameplates (test/fixtures/web/ics-nameplates.csv, the first 12) and a Windows host, a vendor watched, a
// webhook, two alerts (one read) and a triage decision with its history. Listens on a free loopback port; the
// browser context comes back signed in (the session's cookies).
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Browser, BrowserContext } from 'playwright-core';
import { testApp, seedOrg, seedSession, type TestApp } from './app.ts';
import { freePort } from './net.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from './ingest.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { SESSION_COOKIE, CSRF_COOKIE } from '../../src/http/session-cookies.ts';

const HOST = {
  asset_id: 'win-hist-01',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.6054',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5040430'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};

export interface WebDemo {
  t: TestApp;
  base: string;
  env: number;
  hookId: number;
  /** A CVE of the environment with a decision (and its history). */
  decided: string;
  /** Every page of the app, signed in (paths with their query). */
  pages: string[];
  signIn(browser: Browser, viewport: { width: number; height: number }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function startWebDemo(): Promise<WebDemo> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await testApp({
    env: { VULNINTEL_PUBLIC_URL: base, VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'hooks.example.com' },
    now: new Date().toISOString(),
  });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], {
    log: { info() {}, warn() {} },
  });
  const o = await seedOrg(t.store, { name: 'Rhine Valley Packaging', tier: 'professional' });
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown) => {
    const r = await t.app.inject({
      method,
      url,
      headers: { ...o.auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    if (r.statusCode >= 300) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
    return r.json().data;
  };
  const env = (
    await call('POST', '/api/v1/environments', {
      name: 'Line 3 packaging',
      description: 'Cell controllers, drives and HMIs',
    })
  ).id as number;
  await call('POST', '/api/v1/environments', { name: 'Utilities', description: 'Boilers and compressed air' });
  const plates = parseCsv(readFileSync(new URL('../fixtures/web/ics-nameplates.csv', import.meta.url)), {
    columns: true,
  }) as Record<string, string>[];
  const assets = plates
    .slice(14, 26)
    .map((r) => ({
      asset_id: r.asset_id,
      vendor: r.vendor,
      product: r.product,
      ...(r.version ? { version: r.version } : {}),
    }));
  await call('POST', '/api/v1/assets/correlate-cves', { environment_id: env, assets });
  await call('POST', '/api/v2/assets/correlate', { environment_id: env, windows_hosts: [HOST] });
  await call('POST', '/api/v1/watchlist', { entity_type: 'vendor', entity_id: 'siemens' });
  const hookId = (await call('POST', '/api/v1/webhooks', { label: 'Plant SOC', url: 'https://hooks.example.com/soc' }))
    .id as number;
  const decided = 'CVE-2024-46886';
  await call('PUT', `/api/v1/environments/${env}/decisions/${decided}`, {
    status: 'affected',
    action_statement: 'Drives segmented behind the cell firewall; update to V3.1.4 at the March outage',
    due_date: '2027-03-15',
    comment: 'Checked with the line engineer',
  });
  await call('PUT', `/api/v1/environments/${env}/decisions/${decided}`, {
    status: 'affected',
    action_statement: 'Drives segmented behind the cell firewall; update to V3.1.4 at the March outage',
    due_date: '2027-03-01',
    assignee_member_id: o.memberId,
  });
  const run = await t.store.db
    .insertInto('alert_runs')
    .values({ from_seq: 0, to_seq: 0, status: 'completed', trigger: 'cli' } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const [cve, p, kind, reason] of [
    [decided, 'PATCH NEXT', 'ranges_changed', 'affected ranges changed'],
    ['CVE-2023-28489', 'MONITOR', 'new_cve', 'new CVE'],
  ] as const) {
    await t.store.db
      .insertInto('alert_cves')
      .values({
        run_id: run.id,
        cve_id: cve,
        reasons: [reason],
        change_kinds: [kind],
        stamp: new Date().toISOString(),
        data: JSON.stringify({ cve_id: cve }),
      } as never)
      .execute();
    const a = await t.store.db
      .insertInto('alerts')
      .values({
        org_id: o.orgId,
        run_id: run.id,
        cve_id: cve,
        sage_priority: p,
        match_type: 'vendor',
        match_name: 'Siemens',
        payload: null,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    if (kind === 'new_cve') await t.app.services.alerts.markRead(o.orgId, o.memberId, [Number(a.id)], true);
  }
  await t.app.listen({ port, host: '127.0.0.1' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  const value = (name: string) => new RegExp(`${name}=([^;]+)`).exec(s.cookie)![1];
  return {
    t,
    base,
    env,
    hookId,
    decided,
    pages: [
      '/overview',
      '/cves?vendor=Siemens',
      '/environments',
      `/environments/${env}`,
      `/environments/${env}/decisions`,
      `/environments/${env}/decisions/${decided}`,
      '/alerts',
      '/watchlist',
      `/webhooks?id=${hookId}`,
      '/account',
      '/account/notifications',
      '/training',
      '/training/ics-ot-security-fundamentals',
      `/cve/${decided}`,
      '/api/v1/health',
    ],
    async signIn(browser, viewport) {
      const ctx = await browser.newContext({ viewport });
      await ctx.addCookies([SESSION_COOKIE, CSRF_COOKIE].map((name) => ({ name, value: value(name), url: base })));
      return ctx;
    },
    close: () => t.close(),
  };
}
