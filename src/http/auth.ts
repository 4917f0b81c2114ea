// Authentication (spec §5): API keys (Authorization: Bearer), browser sessions (cookie), and per-route guards
// declared in route config. Guards run in order: kind (partner/trial) → scope → role.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { isWellFormedApiKey, sha256Hex } from '../lib/crypto.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { findKeyByHash, findSessionByHash } from '../store/identity.ts';
import type { KeyKind, Role, Scope, Tier } from '../domain/tiers.ts';

export const SESSION_COOKIE = 'vi_session';

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
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
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
  if (row.expires_at && row.expires_at.getTime() <= clock.now().getTime()) {
    if (row.kind === 'trial') {
      throw new ApiError('TRIAL_ENDED', { detail: { reason: 'expired', contact_url: 'mailto:support@vulnintel.local' } });
    }
    throw new ApiError('AUTH_REQUIRED', { message: 'API key expired', detail: { error: 'api_key_expired' } });
  }
  return {
    via: 'key', orgId: row.org_id, orgName: row.org_name, memberId: row.member_id, email: row.email,
    role: row.role, tier: row.tier, keyId: row.key_id, keyStart: row.key_start, kind: row.kind, scopes: row.scopes,
  };
}

export function registerAuth(app: FastifyInstance, deps: { db: Db; clock: Clock }) {
  app.decorateRequest('principal', null);

  app.addHook('preHandler', async (req) => {
    const auth: RouteAuth = req.routeOptions.config.auth ?? { mode: 'public' };
    if (auth.mode === 'none') return;
    const token = bearer(req);
    const sessionToken = cookie(req, SESSION_COOKIE);
    if (token === null) {
      throw new ApiError('AUTH_REQUIRED', { message: 'Invalid API key: use the header Authorization: Bearer <API key>', detail: { error: 'invalid_api_key' } });
    }
    if (token !== undefined) {
      req.principal = await resolveKey(deps.db, deps.clock, token);
    } else if (sessionToken) {
      const s = await findSessionByHash(deps.db, sha256Hex(sessionToken), deps.clock.now());
      if (s && s.org_status === 'active') {
        req.principal = {
          via: 'session', orgId: s.org_id, orgName: s.org_name, memberId: s.member_id, email: s.email, role: s.role,
          tier: s.tier, keyId: null, keyStart: null, kind: 'session', scopes: ['read', 'write'],
        };
      } else if (auth.mode !== 'public') {
        throw new ApiError('AUTH_REQUIRED', { message: 'Session expired; sign in again', detail: { error: 'session_expired' } });
      }
    }
    enforce(req, auth);
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
  if (p.kind === 'partner' && !auth.partner) throw new ApiError('PARTNER_SCOPE');
  if (p.kind === 'trial' && !auth.trial) {
    throw new ApiError('TRIAL_SCOPE', { detail: { contact_url: 'mailto:support@vulnintel.local' } });
  }
  if (auth.scope && !p.scopes.includes(auth.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE', { message: `This API key lacks the ${auth.scope} scope`, detail: { required_scope: auth.scope } });
  }
  if (auth.write && p.role === 'viewer') throw new ApiError('VIEWER_ROLE');
}
