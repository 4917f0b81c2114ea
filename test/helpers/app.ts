// Builds the real app against a fresh database, and seeds organizations, members and API keys.
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { fixedClock, type Clock } from '../../src/lib/clock.ts';
import { generateApiKey } from '../../src/lib/crypto.ts';
import { createMember, createOrganization, insertApiKey } from '../../src/store/identity.ts';
import type { Store } from '../../src/store/db.ts';
import type { KeyKind, Role, Scope, Tier } from '../../src/domain/tiers.ts';
import { freshDb, type TestDb } from './db.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
import { recordAnswers } from './answer-record.ts';
import { openStore } from '../../src/store/db.ts';
import { randomToken, sha256Hex } from '../../src/lib/crypto.ts';
import { insertSession } from '../../src/store/identity.ts';
import { CSRF_COOKIE, SESSION_COOKIE, csrfTokenFor } from '../../src/http/session-cookies.ts';

export const TEST_INTERNAL_KEY = 'test-internal-key-0123456789';
/** The query deadline of a `viaProxy` test app's store. */
export const PROXY_QUERY_DEADLINE_MS = 1500;

export interface TestApp {
  app: FastifyInstance;
  db: TestDb;
  /** The app's store (through the fault proxy when `viaProxy`). */
  store: Store;
  /** Set when `viaProxy`: cut or restore the app's database connection. */
  proxy: TcpProxy | null;
  config: Readonly<Config>;
  clock: ReturnType<typeof fixedClock>;
  close(): Promise<void>;
}

export async function testApp(
  opts: {
    env?: Record<string, string>;
    now?: string;
    clock?: Clock;
    /** Test-only routes added before ready (buildApp's testRoutes hook). */
    testRoutes?: (app: FastifyInstance) => void | Promise<void>;
    /** Route the app's database connections through a TCP proxy the test can cut. */
    viaProxy?: boolean;
    /** Smaller rate-limit windows (buildApp's rateProfiles). */
    rateProfiles?: AppDeps['rateProfiles'];
    /** A logger for the app (default: none). */
    logger?: AppDeps['logger'];
  } = {},
): Promise<TestApp> {
  const db = await freshDb();
  let proxy: TcpProxy | null = null;
  let store = db.store;
  let url = db.url;
  if (opts.viaProxy) {
    const u = new URL(db.url);
    proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    u.port = String(proxy.port);
    url = u.toString();
    // Short connect timeout and query deadline: a black-holed database fails the request in about a second, not
    // after pg's default 5 s connect timeout or the production deadline (statement timeout + 5 s).
    store = openStore(url, { max: 5, connectionTimeoutMs: 1000, queryDeadlineMs: PROXY_QUERY_DEADLINE_MS });
  }
  const config = loadConfig({
    DATABASE_URL: url,
    VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'silent',
    // The edge limit (60 anonymous requests a minute per address, on by default) is off in test apps: every inject
    // comes from 127.0.0.1. test/integration/edge-limit.test.ts turns it on.
    VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
    ...(opts.env ?? {}),
  });
  const clock = fixedClock(opts.now ?? '2026-11-21T12:00:00Z');
  const app = await buildApp({
    config,
    store,
    clock: opts.clock ?? clock,
    testRoutes: opts.testRoutes,
    rateProfiles: opts.rateProfiles,
    logger: opts.logger,
  });
  await app.ready();
  recordAnswers(app);
  return {
    app,
    db,
    store,
    proxy,
    config,
    clock,
    async close() {
      await app.close();
      if (proxy) {
        await store.close();
        await proxy.close();
      }
      await db.drop();
    },
  };
}

export interface SeededKey {
  orgId: number;
  memberId: number;
  keyId: number;
  key: string;
  auth: { authorization: string };
}

/** Creates an organization with an owner and one API key for that owner. */
export async function seedOrg(
  store: Store,
  o: { name?: string; tier?: Tier } = {},
): Promise<SeededKey & { ownerEmail: string }> {
  const org = await createOrganization(
    store.db,
    o.name ?? `Org ${Math.random().toString(36).slice(2, 8)}`,
    o.tier ?? 'professional',
  );
  const email = `owner@${org.id}.example.test`;
  const m = await createMember(store.db, org.id, email, 'owner', 'Owner');
  const k = await seedKey(store, org.id, m.id, {});
  return { ...k, ownerEmail: email };
}

/** Adds a member (if role given) or uses memberId, and issues a key with the given kind/scopes/expiry. */
export async function seedKey(
  store: Store,
  orgId: number,
  memberId: number | null,
  o: { role?: Role; kind?: KeyKind; scopes?: Scope[]; expiresAt?: Date | null; revoked?: boolean },
): Promise<SeededKey> {
  let mid = memberId;
  if (mid === null) {
    const m = await createMember(
      store.db,
      orgId,
      `${o.role ?? 'admin'}-${Math.random().toString(36).slice(2, 8)}@example.test`,
      o.role ?? 'admin',
    );
    mid = m.id;
  }
  const g = generateApiKey();
  const row = await insertApiKey(store.db, orgId, {
    member_id: mid,
    key_hash: g.hash,
    key_start: g.start,
    kind: o.kind ?? 'standard',
    scopes: o.scopes ?? ['read', 'write'],
    expires_at: o.expiresAt ?? null,
  });
  if (o.revoked)
    await store.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', row.id).execute();
  return { orgId, memberId: mid, keyId: row.id, key: g.key, auth: { authorization: `Bearer ${g.key}` } };
}

/** Two organizations, A and B, each with an owner key: the fixture of every cross-tenant test. */
export async function seedTwoOrgs(store: Store) {
  const a = await seedOrg(store, { name: 'Org A', tier: 'professional' });
  const b = await seedOrg(store, { name: 'Org B', tier: 'professional' });
  return { a, b };
}

/** A browser session for a member; returns the Cookie header to send. */
export async function seedSession(
  store: Store,
  orgId: number,
  memberId: number,
  expiresAt = new Date('2100-01-01T00:00:00Z'),
) {
  const token = randomToken();
  await insertSession(store.db, orgId, memberId, sha256Hex(token), expiresAt);
  // The CSRF token rides along (as a page's form or script would send it); tests of the CSRF refusal drop it.
  return {
    cookie: `${SESSION_COOKIE}=${token}; ${CSRF_COOKIE}=${csrfTokenFor(token)}`,
    'x-csrf-token': csrfTokenFor(token),
  };
}
