// The two-tenant runner (house style pattern 8, docs/reliability.md D8): every route that declares
// `config.auth.tenant` is attacked with organization A's credentials (API key and session) against organization
// B's ids, read from the declaration itself. A tenant route joins by declaring; it needs no test of its own.
// What the runner must know per tenant resource is here: how to seed it for one organization, and which ids it
// yields. A route naming a resource (or an id) the runner cannot seed fails the coverage check, so a new tenant
// route cannot slip through unattacked.
import { sql } from '../../src/store/kysely.ts';
import type { RouteEntry } from '../../src/http/conventions.ts';
import type { TenantDecl, TenantId } from '../../src/http/auth.ts';
import type { TestApp } from './app.ts';
import { seedKey, seedOrg, seedSession } from './app.ts';
import { createMember, createOrganization } from '../../src/store/identity.ts';
import { storeResults } from '../../src/store/windows.ts';
import { writeDecisions } from '../../src/store/triage-decisions.ts';
import { caught } from '../../src/services/refusal.ts';

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
  seed(
    t: TestApp,
    org: { orgId: number; tag: string },
  ): Promise<{ ids: Record<string, string | number>; markers: string[] }>;
}

async function seedEnvironment(t: TestApp, org: { orgId: number; tag: string }) {
  return t.app.services.environments.create(org.orgId, {
    name: `Runner plant ${org.tag}`,
    description: `Secret line ${org.tag}`,
  });
}

/** Tenant resources the runner can seed. Add one here when a route declares a new resource. */
export const RESOURCES: Record<string, ResourceFixture> = {
  members: {
    // The owner and its email come with every seeded organization; a viewer is the member routes take by id.
    async seed(t, org) {
      const email = `runner-viewer-${org.tag.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
      const m = await createMember(t.store.db, org.orgId, email, 'viewer', `Runner viewer ${org.tag}`);
      return { ids: { member_id: m.id }, markers: [email] };
    },
  },
  invitations: {
    // A pending invitation of the organization (withdrawn by id).
    async seed(t, org) {
      const email = `runner-invitee-${org.tag.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
      const r = await sql<{ id: string }>`INSERT INTO invitations (org_id, email, role, token_hash, expires_at)
        VALUES (${org.orgId}, ${email}, 'viewer', ${`runner-${email}`}, now() + interval '7 days') RETURNING id`.execute(
        t.store.db,
      );
      // It holds a member seat: the organization's cap is raised so the runner's own invitations still fit.
      await sql`UPDATE organizations SET cap_overrides = coalesce(cap_overrides, '{}'::jsonb) || '{"members": 50}'::jsonb WHERE id = ${org.orgId}`.execute(
        t.store.db,
      );
      return { ids: { invitation_id: Number(r.rows[0].id) }, markers: [email] };
    },
  },
  organizations: {
    async seed(_t, org) {
      return { ids: { org_id: org.orgId }, markers: [] };
    },
  },
  api_keys: {
    async seed(t, org) {
      const m = await createMember(
        t.store.db,
        org.orgId,
        `runner-keyholder-${org.tag.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.test`,
        'admin',
      );
      const k = await seedKey(t.store, org.orgId, m.id, {});
      return { ids: { key_id: k.keyId }, markers: [m.email] };
    },
  },
  clients: {
    // A client organization of this one (managed-service provider, spec §3.2).
    async seed(t, org) {
      const name = `Runner client of ${org.tag} ${Math.random().toString(36).slice(2, 8)}`;
      const c = await createOrganization(t.store.db, name, 'standard');
      await t.app.services.accounts.setProvider(c.id, org.orgId);
      return { ids: { client_id: c.id }, markers: [name] };
    },
  },
  environments: {
    async seed(t, org) {
      const env = await seedEnvironment(t, org);
      return { ids: { environment_id: env.id }, markers: [env.name, `Secret line ${org.tag}`] };
    },
  },
  feed_tokens: {
    async seed(t, org) {
      const tok = await t.app.services.feeds.createToken(org.orgId, null, `Runner feed ${org.tag}`);
      return { ids: { token_id: tok.id }, markers: [tok.label!, tok.token] };
    },
  },
  webhooks: {
    async seed(t, org) {
      // hooks.example.com is on the runner app's VULNINTEL_WEBHOOK_EGRESS_ALLOW (no DNS in tests).
      const r = await t.app.services.webhooks.create(
        { orgId: org.orgId, tier: 'professional' },
        { label: `Runner hook ${org.tag}`, url: `https://hooks.example.com/runner-${org.tag.toLowerCase()}` },
      );
      return { ids: { id: r.webhook.id }, markers: [r.webhook.label, r.webhook.url, r.secret] };
    },
  },
  watchlist: {
    async seed(t, org) {
      // A protocol needs no catalog rows; the id is random and tenant-scoped (docs/watchlists.md).
      // (Seeded again for the same organization by the coverage probe: the entry already there is the one.)
      const entryId = await t.app.services.watchlists
        .add(org.orgId, null, { entity_type: 'protocol', entity_id: 'dnp3' })
        .then(
          (r) => r.entry.id,
          (e: unknown) => caught(e, ['already_watching']).detail.entry_id as number,
        );
      return { ids: { entry_id: entryId }, markers: [] };
    },
  },
  alerts: {
    async seed(t, org) {
      // An alert as the alert run stores it (services/alerts.ts), without running the import.
      const run = await sql<{
        id: number;
      }>`INSERT INTO alert_runs (from_seq, to_seq, status, trigger) VALUES (0, 0, 'completed', 'cli') RETURNING id`.execute(
        t.store.db,
      );
      const name = `Runner vendor ${org.tag}`;
      const a = await sql<{
        id: number;
      }>`INSERT INTO alerts (org_id, run_id, cve_id, sage_priority, reasons, change_kinds, match_type, match_name, payload)
        VALUES (${org.orgId}, ${run.rows[0].id}, 'CVE-2024-0001', 'MONITOR', ARRAY['new CVE'], ARRAY['new_cve'], 'vendor', ${name}, '{}'::jsonb) RETURNING id`.execute(
        t.store.db,
      );
      return { ids: { alert_id: Number(a.rows[0].id) }, markers: [name] };
    },
  },
  windows_results: {
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-w` });
      const assetId = `runner-${org.tag.toLowerCase()}-0001`;
      const host = {
        asset_id: assetId,
        os_product: 'Windows Server 2019 Datacenter',
        edition_id: 'ServerDatacenter',
        display_version: '1809',
        os_build: '10.0.17763.8755',
        architecture: 'x64',
        installation_type: 'Server',
        installed_kbs: ['KB5087538'],
        kb_source: 'Get-HotFix',
        esu_enrolled: '',
        collected_at: '2026-07-01T08:00:00Z',
      };
      await storeResults(
        t.store.db,
        org.orgId,
        env.id,
        '2026-07-10',
        'vi-req-000000000000',
        [{ asset_id: assetId, host, warnings: [], result: {}, data_as_of: null }],
        [{ asset_id: assetId, name: `Runner software ${org.tag}`, publisher: null, version: null }],
      );
      return { ids: { environment_id: env.id, asset_id: assetId }, markers: [assetId, env.name] };
    },
  },
  asset_correlations: {
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-a` });
      const assetId = `runner-plc-${org.tag.toLowerCase()}-0001`;
      await sql`INSERT INTO asset_correlations (org_id, environment_id, asset_id, asset, result, request_id)
        VALUES (${org.orgId}, ${env.id}, ${assetId}, ${JSON.stringify({ asset_id: assetId, vendor: 'Siemens', product: `Runner PLC ${org.tag}` })}::jsonb, '{}'::jsonb, 'vi-req-000000000000')`.execute(
        t.store.db,
      );
      return { ids: { environment_id: env.id, asset_id: assetId }, markers: [assetId, env.name] };
    },
  },
  decisions: {
    // An environment with one decision and its history row (store/triage-decisions.ts, without the corpus check of the service).
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-d` });
      const text = `Runner impact ${org.tag}`;
      await t.store.db
        .transaction()
        .execute((trx) =>
          writeDecisions(
            trx,
            org.orgId,
            env.id,
            [
              {
                cve_id: 'CVE-2024-0001',
                comment: `Runner comment ${org.tag}`,
                fields: {
                  status: 'not_affected',
                  justification: 'component_not_present',
                  impact_statement: text,
                  action_statement: null,
                  due_date: null,
                  asset_ids: [],
                  assignee_member_id: null,
                },
              },
            ],
            new Map(),
            { member: null, key: null, label: 'runner' },
            'set',
          ),
        );
      return { ids: { environment_id: env.id }, markers: [env.name, text] };
    },
  },
  training_progress: {
    async seed(t, org) {
      const o = await t.store.db
        .selectFrom('members')
        .select('id')
        .where('org_id', '=', org.orgId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
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
      const o = await t.store.db
        .selectFrom('members')
        .select('id')
        .where('org_id', '=', org.orgId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      await t.app.services.accountPreferences.putNotificationPrefs(
        { orgId: org.orgId, memberId: o.id },
        { email_enabled: false, min_severity: 'CRITICAL', min_bcs: 9.3, kev_only: true, delivery: 'instant' },
      );
      return { ids: {}, markers: [] };
    },
  },
  exposure_history: {
    // An environment with one day's snapshot (store/exposure.ts, as the daily job writes it).
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-x` });
      const open = `CVE-2024-${org.tag === 'A' ? '9991' : '9992'}`;
      await sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures, open_cve_ids)
        VALUES (${org.orgId}, ${env.id}, current_date, now(), '{"open_cves": 1}'::jsonb, ${[open]}::text[])`.execute(
        t.store.db,
      );
      return { ids: { environment_id: env.id }, markers: [env.name] };
    },
  },
  plant_reports: {
    // An environment: its report names it (and its description stays the organization's).
    async seed(t, org) {
      const env = await seedEnvironment(t, { ...org, tag: `${org.tag}-r` });
      return { ids: { environment_id: env.id }, markers: [env.name] };
    },
  },
  report_preferences: {
    async seed(t, org) {
      const o = await t.store.db
        .selectFrom('members')
        .select('id')
        .where('org_id', '=', org.orgId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      await t.app.services.reports.setCadence(org.orgId, o.id, 'monthly');
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
  cve_id: 'CVE-2024-0001',
};

/**
 * Bodies for write routes whose body schema carries no `examples` (the runner takes `schema.body.examples[0]`
 * otherwise). Keyed by "METHOD /url"; the id under attack is set into it. The v2 submissions: their TypeBox
 * body schemas come with the v2 work, and the multipart one has no JSON body to give an example of.
 */
export const FALLBACK_BODIES: Record<
  string,
  (id: Record<string, string | number>) => { payload: string | Buffer; headers: Record<string, string> }
> = {
  'POST /api/v2/assets/correlate': (id) => json({ ...id, windows_hosts: [RUNNER_HOST] }),
  'POST /api/v2/assets/correlate-csv': (id) =>
    multipart(
      {
        ...Object.fromEntries(Object.entries(id).map(([k, v]) => [k, String(v)])),
        hosts: `${Object.keys(RUNNER_HOST).join(',')}\n${Object.values(RUNNER_HOST)
          .map((v) => (Array.isArray(v) ? v.join(';') : v))
          .join(',')}\n`,
      },
      ['hosts'],
    ),
  // The web app's upload form: the environment is in the path; the CSV rides as the file part.
  'POST /environments/:environment_id/upload': () =>
    multipart(
      { kind: 'nameplates', file: 'asset_id,vendor,product,version\nrunner-plc-1,Siemens,SIMATIC S7-1500,V2.9\n' },
      ['file'],
    ),
};

const RUNNER_HOST = {
  asset_id: 'runner-attacker-0001',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5087538'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};

function json(body: unknown) {
  return { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

function multipart(parts: Record<string, string>, files: string[]) {
  const boundary = '----vi-runner';
  const chunks = Object.entries(parts).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${files.includes(name) ? `; filename="${name}.csv"\r\nContent-Type: text/csv` : ''}\r\n\r\n${value}\r\n`,
  );
  return {
    payload: Buffer.from(`${chunks.join('')}--${boundary}--\r\n`),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/**
 * Own-data routes that refuse organization A's valid credentials by design, with the refusals the runner accepts
 * (detail.error by credential): session-only routes refuse a key; the trial is for Free organizations (the runner's
 * are Professional); deleting the account needs the confirmation text, which the runner never sends.
 */
export const OWN_DATA_REFUSALS: Record<string, { key: string; session: string }> = {
  'POST /api/v1/account/trial': { key: 'session_required', session: 'trial_unavailable' },
  'DELETE /api/v1/account': { key: 'session_required', session: 'confirmation_required' },
  'POST /account/delete': { key: 'session_required', session: 'confirmation_required' },
};

export interface TenantRoute {
  method: string;
  url: string;
  /** Session-only routes refuse every key before reading anything: they are attacked by session only. */
  sessionOnly: boolean;
  tenant: TenantDecl;
  schema: Record<string, unknown> | null;
}

export function tenantRoutes(table: RouteEntry[]): TenantRoute[] {
  return table
    .filter((r) => r.policy?.tenant)
    .map((r) => ({
      method: r.method,
      url: r.url,
      sessionOnly: r.policy!.mode === 'session',
      tenant: r.policy!.tenant as TenantDecl,
      schema: r.schema,
    }));
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
  // Enterprise: the probe seeds an environment for every route that takes one, past Professional's 10.
  const probe = await seedOrg(t.store, { name: 'Runner probe', tier: 'enterprise' });
  for (const [i, r] of routes.entries()) {
    const label = `${r.method} ${r.url}`;
    const fx = RESOURCES[r.tenant.resource];
    if (!fx) {
      out.push(
        `${label}: no fixture for tenant resource "${r.tenant.resource}" (add one to RESOURCES in test/helpers/tenant-runner.ts)`,
      );
      continue;
    }
    const { ids } = await fx.seed(t, { orgId: probe.orgId, tag: `probe${i}` });
    for (const id of r.tenant.ids) {
      if (!(id.name in ids)) out.push(`${label}: the "${r.tenant.resource}" fixture yields no ${id.name}`);
    }
    for (const p of r.url.match(/:(\w+)/g) ?? []) {
      if (r.tenant.catalog?.includes(p.slice(1))) {
        if (!(p.slice(1) in CATALOG_VALUES))
          out.push(`${label}: catalog parameter ${p} has no value in CATALOG_VALUES`);
        continue;
      }
      if (!r.tenant.ids.some((i) => i.in === 'params' && i.name === p.slice(1)))
        out.push(`${label}: route parameter ${p} is not declared in tenant.ids`);
    }
    if (needsBody(r.method) && bodyExample(r) === undefined && !FALLBACK_BODIES[label]) {
      out.push(
        `${label}: a write route needs schema.body.examples (or a FALLBACK_BODIES entry) for the runner to build its request`,
      );
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
    const r = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${sql.table(table_name)} WHERE org_id = ${orgId}`.execute(t.store.db);
    out[table_name] = r.rows[0].n;
  }
  return out;
}

export interface Attack {
  label: string;
  /** The credential used. */
  via: 'key' | 'session';
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
    for (const [via, cred] of [
      ['key', a.key],
      ['session', { ...a.session, origin: publicOrigin }],
    ] as const) {
      if (via === 'key' && r.sessionOnly) continue;
      out.push({
        via,
        label: `${r.method} ${r.url} ${id ? `${id.in}.${id.name}=B's` : '(own data)'} via ${via}`,
        id,
        method: r.method,
        url: qs ? `${url}?${qs}` : url,
        payload: body?.payload,
        headers: { ...cred, ...(body?.headers ?? {}) },
      });
    }
  }
  return out;
}
