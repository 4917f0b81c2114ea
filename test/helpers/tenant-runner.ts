// The two-tenant runner (house style pattern 8, docs/reliability.md D8): every route that declares
// `config.auth.tenant` is attacked with organization A's credentials (API key and session) against organization
// B's ids, read from the declaration itself. A tenant route joins by declaring; it needs no test of its own.
// What the runner must know per tenant resource is here: how to seed it for one organization, and which ids it
// yields. A route naming a resource (or an id) the runner cannot seed fails the coverage check, so a new tenant
// route cannot slip through unattacked.
import { sql } from 'kysely';
import type { RouteEntry } from '../../src/http/conventions.ts';
import type { TenantDecl, TenantId } from '../../src/http/auth.ts';
import type { TestApp } from './app.ts';
import { seedOrg, seedSession } from './app.ts';
import { storeResults } from '../../src/store/windows.ts';

export interface SeededTenant {
  orgId: number;
  name: string;
  key: { authorization: string };
  session: { cookie: string };
  /** Values the other organization must never see in a response (names, emails, ids, asset ids). */
  markers: string[];
  /** The ids of this organization's data, by parameter name (environment_id, asset_id, ...). */
  ids: Record<string, string | number>;
}

interface ResourceFixture {
  /** Seeds this resource for one organization; returns its ids (by the names routes take them under) and markers. */
  seed(t: TestApp, org: { orgId: number; tag: string }): Promise<{ ids: Record<string, string | number>; markers: string[] }>;
}

async function seedEnvironment(t: TestApp, org: { orgId: number; tag: string }) {
  const r = await t.app.services.environments.create(org.orgId, { name: `Runner plant ${org.tag}`, description: `Secret line ${org.tag}` });
  if (!r.ok) throw new Error('environment not created');
  return r.environment;
}

/** Tenant resources the runner can seed. Add one here when a route declares a new resource. */
export const RESOURCES: Record<string, ResourceFixture> = {
  members: {
    async seed() {
      return { ids: {}, markers: [] }; // the owner and its email come with every seeded organization
    },
  },
  environments: {
    async seed(t, org) {
      const env = await seedEnvironment(t, org);
      return { ids: { environment_id: env.id }, markers: [env.name, `Secret line ${org.tag}`] };
    },
  },
  windows_results: {
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-w` });
      const assetId = `runner-${org.tag.toLowerCase()}-0001`;
      const host = {
        asset_id: assetId, os_product: 'Windows Server 2019 Datacenter', edition_id: 'ServerDatacenter', display_version: '1809',
        os_build: '10.0.17763.8755', architecture: 'x64', installation_type: 'Server', installed_kbs: ['KB5087538'], kb_source: 'Get-HotFix',
        esu_enrolled: '', collected_at: '2026-07-01T08:00:00Z',
      };
      await storeResults(t.store.db, org.orgId, env.id, '2026-07-10', 'vi-req-000000000000',
        [{ asset_id: assetId, host, warnings: [], result: {}, data_as_of: null }],
        [{ asset_id: assetId, name: `Runner software ${org.tag}`, publisher: null, version: null }]);
      return { ids: { environment_id: env.id, asset_id: assetId }, markers: [assetId, env.name] };
    },
  },
  training_progress: {
    async seed(t, org) {
      const o = await t.store.db.selectFrom('members').select('id').where('org_id', '=', org.orgId).where('role', '=', 'owner').executeTakeFirstOrThrow();
      const m = { orgId: org.orgId, memberId: o.id };
      const [first, second] = t.app.services.training.catalogue;
      await t.app.services.training.start(m, first.id);
      await t.app.services.training.start(m, second.id);
      await t.app.services.training.complete(m, second.id);
      return { ids: {}, markers: [] }; // module ids are shared catalogue entries; the rows are what must stay B's
    },
  },
  notification_preferences: {
    async seed(t, org) {
      const o = await t.store.db.selectFrom('members').select('id').where('org_id', '=', org.orgId).where('role', '=', 'owner').executeTakeFirstOrThrow();
      await t.app.services.accountPreferences.putNotificationPrefs({ orgId: org.orgId, memberId: o.id },
        { email_enabled: false, min_severity: 'CRITICAL', min_bcs: 9.3, kev_only: true, delivery: 'instant' });
      return { ids: {}, markers: [] };
    },
  },
};

/**
 * Values for route parameters declared `tenant.catalog` (shared catalogue entries, the same for every
 * organization): the runner fills them in rather than attacking them.
 */
export const CATALOG_VALUES: Record<string, string> = {
  module_id: 'ics-ot-security-fundamentals',
};

/**
 * Bodies for write routes whose body schema carries no `examples` (the runner takes `schema.body.examples[0]`
 * otherwise). Keyed by "METHOD /url"; the id under attack is set into it. The v2 submissions: their TypeBox
 * body schemas come with the v2 work, and the multipart one has no JSON body to give an example of.
 */
export const FALLBACK_BODIES: Record<string, (id: Record<string, string | number>) => { payload: string | Buffer; headers: Record<string, string> }> = {
  'POST /api/v2/assets/correlate': (id) => json({ ...id, windows_hosts: [RUNNER_HOST] }),
  'POST /api/v2/assets/correlate-csv': (id) => multipart({
    ...Object.fromEntries(Object.entries(id).map(([k, v]) => [k, String(v)])),
    hosts: `${Object.keys(RUNNER_HOST).join(',')}\n${Object.values(RUNNER_HOST).map((v) => (Array.isArray(v) ? v.join(';') : v)).join(',')}\n`,
  }, ['hosts']),
};

const RUNNER_HOST = {
  asset_id: 'runner-attacker-0001', os_product: 'Windows Server 2019 Datacenter', edition_id: 'ServerDatacenter', display_version: '1809',
  os_build: '10.0.17763.8755', architecture: 'x64', installation_type: 'Server', installed_kbs: ['KB5087538'], kb_source: 'Get-HotFix',
  esu_enrolled: '', collected_at: '2026-07-01T08:00:00Z',
};

function json(body: unknown) {
  return { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

function multipart(parts: Record<string, string>, files: string[]) {
  const boundary = '----vi-runner';
  const chunks = Object.entries(parts).map(([name, value]) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${files.includes(name) ? `; filename="${name}.csv"\r\nContent-Type: text/csv` : ''}\r\n\r\n${value}\r\n`);
  return { payload: Buffer.from(`${chunks.join('')}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface TenantRoute {
  method: string;
  url: string;
  tenant: TenantDecl;
  schema: Record<string, unknown> | null;
}

export function tenantRoutes(table: RouteEntry[]): TenantRoute[] {
  return table.filter((r) => r.policy?.tenant).map((r) => ({ method: r.method, url: r.url, tenant: r.policy!.tenant as TenantDecl, schema: r.schema }));
}

function bodyExample(r: TenantRoute): unknown {
  const body = r.schema?.body as { examples?: unknown[] } | undefined;
  return body?.examples?.[0];
}

const needsBody = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'DELETE';

/**
 * Why the runner cannot attack a tenant route (empty when it can): an unknown resource, an id the resource's
 * fixture does not yield, a route parameter that is not declared, or a write without an example body.
 */
export async function coverageProblems(t: TestApp, routes: TenantRoute[]): Promise<string[]> {
  const out: string[] = [];
  const probe = await seedOrg(t.store, { name: 'Runner probe' });
  for (const [i, r] of routes.entries()) {
    const label = `${r.method} ${r.url}`;
    const fx = RESOURCES[r.tenant.resource];
    if (!fx) {
      out.push(`${label}: no fixture for tenant resource "${r.tenant.resource}" (add one to RESOURCES in test/helpers/tenant-runner.ts)`);
      continue;
    }
    const { ids } = await fx.seed(t, { orgId: probe.orgId, tag: `probe${i}` });
    for (const id of r.tenant.ids) {
      if (!(id.name in ids)) out.push(`${label}: the "${r.tenant.resource}" fixture yields no ${id.name}`);
    }
    for (const p of r.url.match(/:(\w+)/g) ?? []) {
      if (r.tenant.catalog?.includes(p.slice(1))) {
        if (!(p.slice(1) in CATALOG_VALUES)) out.push(`${label}: catalog parameter ${p} has no value in CATALOG_VALUES`);
        continue;
      }
      if (!r.tenant.ids.some((i) => i.in === 'params' && i.name === p.slice(1))) out.push(`${label}: route parameter ${p} is not declared in tenant.ids`);
    }
    if (needsBody(r.method) && bodyExample(r) === undefined && !FALLBACK_BODIES[label]) {
      out.push(`${label}: a write route needs schema.body.examples (or a FALLBACK_BODIES entry) for the runner to build its request`);
    }
  }
  return out;
}

export async function seedTenant(t: TestApp, tag: string, resources: string[]): Promise<SeededTenant> {
  const name = `Runner Org ${tag} ${Math.random().toString(36).slice(2, 8)}`;
  const o = await seedOrg(t.store, { name, tier: 'professional' });
  const session = await seedSession(t.store, o.orgId, o.memberId);
  const ids: Record<string, string | number> = {};
  const markers = [name, o.ownerEmail];
  for (const res of resources) {
    const s = await RESOURCES[res].seed(t, { orgId: o.orgId, tag });
    Object.assign(ids, s.ids);
    markers.push(...s.markers);
  }
  return { orgId: o.orgId, name, key: o.auth, session, markers, ids };
}

/** Rows of one organization in every table that has an org_id column (the tenant tables, found, not listed). */
export async function tenantRowCounts(t: TestApp, orgId: number): Promise<Record<string, number>> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'org_id' ORDER BY table_name`.execute(t.store.db);
  const out: Record<string, number> = {};
  for (const { table_name } of tables.rows) {
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table_name)} WHERE org_id = ${orgId}`.execute(t.store.db);
    out[table_name] = r.rows[0].n;
  }
  return out;
}

export interface Attack {
  label: string;
  /** The id under attack, or null for a route on the caller's own data only (ids: []). */
  id: TenantId | null;
  method: string;
  url: string;
  payload?: string | Buffer;
  headers: Record<string, string>;
}

/** The requests organization A makes against B's data on one route: per declared id, by key and by session. */
export function attacks(r: TenantRoute, a: SeededTenant, b: SeededTenant, publicOrigin: string): Attack[] {
  const targets: (TenantId | null)[] = r.tenant.ids.length ? r.tenant.ids : [null];
  const out: Attack[] = [];
  for (const id of targets) {
    const bIds = id ? { [id.name]: b.ids[id.name] } : {};
    let url = r.url;
    for (const name of r.tenant.catalog ?? []) url = url.replace(`:${name}`, encodeURIComponent(CATALOG_VALUES[name]));
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(bIds)) {
      const where = r.tenant.ids.find((i) => i.name === name)!.in;
      if (where === 'params') url = url.replace(`:${name}`, encodeURIComponent(String(value)));
      if (where === 'query') query.set(name, String(value));
    }
    const qs = query.toString();
    const bodyIds = id?.in === 'body' ? bIds : {};
    let body: { payload: string | Buffer; headers: Record<string, string> } | undefined;
    if (needsBody(r.method)) {
      const example = bodyExample(r);
      const label = `${r.method} ${r.url}`;
      body = example !== undefined ? json({ ...(example as object), ...bodyIds }) : FALLBACK_BODIES[label](bodyIds);
    }
    for (const [via, cred] of [['key', a.key], ['session', { ...a.session, origin: publicOrigin }]] as const) {
      out.push({
        label: `${r.method} ${r.url} ${id ? `${id.in}.${id.name}=B's` : '(own data)'} via ${via}`,
        id, method: r.method, url: qs ? `${url}?${qs}` : url,
        payload: body?.payload, headers: { ...cred, ...(body?.headers ?? {}) },
      });
    }
  }
  return out;
}
