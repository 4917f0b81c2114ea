// Authentication (spec §5): API keys (Authorization: Bearer), browser sessions (cookie), and per-route guards
// declared in route config. Guards run in order: kind (partner/trial) → scope → role.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { isWellFormedApiKey, sha256Hex } from '../lib/crypto.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { findKeyByHash, findSessionByHash } from '../store/identity.ts';
import { UsageMeter } from '../store/usage-meter.ts';
import { MONTHLY_API_ALLOWANCE, type KeyKind, type Role, type Scope, type Tier } from '../domain/tiers.ts';
import { monthWindow } from '../domain/keys.ts';

export const SESSION_COOKIE = 'vi_session';
/** detail.contact_url of the trial errors (spec §7). */
export const CONTACT_URL = 'mailto:support@vulnintel.local';

export interface Principal {
  via: 'key' | 'session';
  orgId: number;
  orgName: string;
  memberId: number;
  email: string;
  role: Role;
  tier: Tier;
  keyId: number | null;
  /** Display prefix of the key, safe to log. */
  keyStart: string | null;
  kind: KeyKind | 'session';
  scopes: Scope[];
}

/** none: no credential is even read (ping, static pages); public: optional credentials. */
export type AuthMode = 'none' | 'public' | 'key' | 'session' | 'key_or_session';

export interface RouteAuth {
  mode: AuthMode;
  /** Key scope this call needs (v2: write to submit, read for results). Sessions hold both. */
  scope?: Scope;
  /** A write operation: owner or admin only (spec §5.6). */
  write?: boolean;
  /** Partner keys may call this route (spec §5.8). */
  partner?: boolean;
  /** Trial keys may call this route (spec §5.8). */
  trial?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The monthly allowance counter (flushed every second and on close). */
    usageMeter: UsageMeter;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}

function bearer(req: FastifyRequest): string | null | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

function cookie(req: FastifyRequest, name: string): string | null {
  const raw = req.headers.cookie;
  if (!raw) return null;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      const v = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(v);
      } catch {
        return v; // malformed percent-encoding: an unknown session, not a 500
      }
    }
  }
  return null;
}

export async function resolveKey(db: Db, clock: Clock, key: string): Promise<Principal> {
  // Malformed keys fail the checksum: refused without a database query.
  if (!isWellFormedApiKey(key)) throw new ApiError('AUTH_REQUIRED', { message: 'Invalid API key', detail: { error: 'invalid_api_key' } });
  const row = await findKeyByHash(db, sha256Hex(key));
  if (!row || row.org_status !== 'active') {
    throw new ApiError('AUTH_REQUIRED', { message: 'Invalid API key', detail: { error: 'invalid_api_key' } });
  }
  if (row.revoked_at) throw new ApiError('AUTH_REQUIRED', { message: 'API key revoked', detail: { error: 'api_key_revoked' } });
  if (row.kind === 'trial' && row.trial_ended_at) {
    throw new ApiError('TRIAL_ENDED', { message: 'The trial has ended; this key is no longer accepted', detail: { reason: 'ended', contact_url: CONTACT_URL } });
  }
  if (row.expires_at && row.expires_at.getTime() <= clock.now().getTime()) {
    if (row.kind === 'trial') {
      throw new ApiError('TRIAL_ENDED', { message: 'The 14-day trial has expired; this key is no longer accepted', detail: { reason: 'expired', contact_url: CONTACT_URL } });
    }
    throw new ApiError('AUTH_REQUIRED', { message: 'API key expired', detail: { error: 'api_key_expired' } });
  }
  return {
    via: 'key', orgId: row.org_id, orgName: row.org_name, memberId: row.member_id, email: row.email,
    role: row.role, tier: row.tier, keyId: row.key_id, keyStart: row.key_start, kind: row.kind, scopes: row.scopes,
  };
}

/**
 * Reads the caller's credential: an API key (Bearer) or a session cookie. A presented key that is malformed,
 * unknown, revoked or expired is refused (401) even on public routes; a stale session cookie is ignored on public
 * routes (`optionalSession`) and refused elsewhere. A valid key's call is counted against the organization's
 * monthly allowance and reported in X-RateLimit-Limit/Used/Remaining (spec §8: tracked, not enforced).
 */
export async function identify(req: FastifyRequest, reply: FastifyReply, deps: AuthDeps, optionalSession: boolean): Promise<Principal | null> {
  const token = bearer(req);
  if (token === null) {
    throw new ApiError('AUTH_REQUIRED', { message: 'Invalid API key: use the header Authorization: Bearer <API key>', detail: { error: 'invalid_api_key' } });
  }
  if (token !== undefined) {
    const p = await resolveKey(deps.db, deps.clock, token);
    await reportAllowance(reply, deps, p);
    return p;
  }
  const sessionToken = cookie(req, SESSION_COOKIE);
  if (!sessionToken) return null;
  const s = await findSessionByHash(deps.db, sha256Hex(sessionToken), deps.clock.now());
  if (s && s.org_status === 'active') {
    return {
      via: 'session', orgId: s.org_id, orgName: s.org_name, memberId: s.member_id, email: s.email, role: s.role,
      tier: s.tier, keyId: null, keyStart: null, kind: 'session', scopes: ['read', 'write'],
    };
  }
  if (optionalSession) return null;
  throw new ApiError('AUTH_REQUIRED', { message: 'Session expired; sign in again', detail: { error: 'session_expired' } });
}

async function reportAllowance(reply: FastifyReply, deps: AuthDeps, p: Principal) {
  const now = deps.clock.now();
  const { month } = monthWindow(now);
  const used = await deps.meter.record(p.orgId, p.keyId!, month, now);
  const limit = MONTHLY_API_ALLOWANCE[p.tier];
  reply.header('X-RateLimit-Limit', String(limit));
  reply.header('X-RateLimit-Used', String(used));
  // -1 = unlimited (the spec's own convention for unlimited, §2.8); never negative otherwise.
  reply.header('X-RateLimit-Remaining', String(limit < 0 ? -1 : Math.max(0, limit - used)));
}

export interface AuthDeps {
  db: Db;
  clock: Clock;
  meter: UsageMeter;
}

export function registerAuth(app: FastifyInstance, base: { db: Db; clock: Clock }) {
  const meter = new UsageMeter(base.db, 1000, (e) => app.log.warn({ err: (e as Error).message }, 'allowance counter not written; kept for the next flush'));
  const deps: AuthDeps = { ...base, meter };
  app.decorate('usageMeter', meter);
  app.addHook('onClose', async () => { await meter.close(); });
  app.decorateRequest('principal', null);
  // Pages outside /api/ (the /docs reference) read no credential unless they declare a guard.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') && !route.config?.auth) route.config = { ...(route.config ?? {}), auth: { mode: 'none' } };
  });

  // onRequest, before the body is read or validated: an unauthenticated caller never gets its body parsed,
  // and every API-key response (400/422/404 included) carries the monthly allowance headers.
  // Callback-style with a synchronous path when there is nothing to look up (no credential route, or no
  // credential presented): no promise, no microtask turn for anonymous traffic.
  app.addHook('onRequest', (req, reply, done) => {
    const auth: RouteAuth = req.routeOptions.config.auth ?? { mode: 'public' };
    if (auth.mode === 'none') return done();
    if (req.headers.authorization === undefined && req.headers.cookie === undefined) {
      try {
        enforce(req, auth);
      } catch (e) {
        return done(e as Error);
      }
      return done();
    }
    identify(req, reply, deps, auth.mode === 'public').then((p) => {
      req.principal = p;
      enforce(req, auth);
    }).then(() => done(), (e: Error) => done(e));
  });
}

/** Applies a route's guard to the resolved principal. Exported for unit tests of the matrix. */
export function enforce(req: { principal: Principal | null }, auth: RouteAuth): void {
  const p = req.principal;
  if (auth.mode === 'public' && !p) return;
  if (!p) {
    const msg = auth.mode === 'session' ? 'A signed-in browser session is required' : 'API key required: send Authorization: Bearer <API key>';
    throw new ApiError('AUTH_REQUIRED', { message: msg, detail: { error: 'auth_required' } });
  }
  if (auth.mode === 'session' && p.via !== 'session') throw new ApiError('SESSION_REQUIRED');
  if (auth.mode === 'key' && p.via !== 'key') throw new ApiError('API_KEY_REQUIRED');
  if (p.kind === 'partner' && !auth.partner) throw new ApiError('PARTNER_SCOPE');
  if (p.kind === 'trial' && !auth.trial) {
    throw new ApiError('TRIAL_SCOPE', { detail: { contact_url: CONTACT_URL } });
  }
  if (auth.scope && !p.scopes.includes(auth.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE', { message: `This API key lacks the ${auth.scope} scope`, detail: { required_scope: auth.scope } });
  }
  if (auth.write && p.role === 'viewer') throw new ApiError('VIEWER_ROLE');
}
