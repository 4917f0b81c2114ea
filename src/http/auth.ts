// Authentication and the route policy (spec §5, §7). Every route declares its policy in `config.auth`:
//   mode    who may call: none (no credential read), public (optional credential), key, session, key_or_session,
//           internal_or_session (X-Internal-Key or a session: the health JSON); role: minimum role; scope: key scope;
//   tenant  false, or the tenant resource the route touches and where its ids come from (the two-tenant
//           runner in test/security/ attacks every such route by this declaration).
// ONE onRequest hook enforces it, before the body is read: credential → kind (partner/trial) → scope → role →
// Origin (session writes). Every write (any method but GET/HEAD) needs the `write` scope and the admin role,
// whatever the route declares, so a write route cannot be opened to read-only keys by a missing field. The one
// exception is explicit: `self: true` marks a write of the caller's own per-member data (training progress,
// notification preferences), which any member may make; it still needs the write scope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { isRecord } from '../domain/is-record.ts';
import { prefersHtml } from './status-page.ts';
import type { Clock } from '../lib/clock.ts';
import { safeEqual } from '../lib/crypto.ts';
import { isConnectionError } from '../lib/db-errors.ts';
import type { UsageMeter } from '../store/usage-meter.ts';
import { KEY_REFUSAL_CODES, roleAtLeast, type IdentityService, type Principal } from '../services/identity.ts';
import { caught } from '../services/refusal.ts';
import { MONTHLY_API_ALLOWANCE, TRIAL_CONTACT_URL, type Role, type Scope } from '../domain/tiers.ts';
import { monthWindow } from '../domain/keys.ts';
import { routeConfig } from './route-config.ts';
import { asError } from '../lib/errors.ts';
import {
  CSRF_FIELD,
  SESSION_COOKIE,
  checkCsrf,
  checkOrigin,
  isWrite,
  sessionCookieOptions,
  verifyCsrf,
} from './session-cookies.ts';

export type { Principal };

/** detail.contact_url of the trial errors (spec §7). */
export const CONTACT_URL = TRIAL_CONTACT_URL;

export type AuthMode = 'none' | 'public' | 'key' | 'session' | 'key_or_session' | 'internal_or_session';

/** Where a tenant route takes the id of a tenant resource, and what a foreign id answers. */
export interface TenantId {
  in: 'params' | 'query' | 'body';
  /** Parameter or body field name, e.g. environment_id. */
  name: string;
  /**
   * The answer to another organization's id: the spec's detail.error of the 404 (e.g. environment_not_found,
   * not_found), or `empty` when a foreign id yields an empty result (a filter, not a lookup).
   */
  foreign: string;
}

/** A route touching tenant data: the resource it reads or writes and the ids it takes ([] = own data only). */
export interface TenantDecl {
  resource: string;
  ids: TenantId[];
  /**
   * Route parameters that name shared catalogue entries, the same for every organization (e.g. a training
   * module_id), not tenant data: the two-tenant runner fills them with a known value instead of attacking them.
   */
  catalog?: string[];
}

export interface RouteAuth {
  mode: AuthMode;
  /** Minimum member role (viewer < admin < owner). Writes need at least admin (spec §5.6). */
  role?: Role;
  /** Key scope this call needs (spec §5.5). Writes need `write`; sessions hold both scopes. */
  scope?: Scope;
  /** Partner keys may call this route (spec §5.8). */
  partner?: boolean;
  /** Trial keys may call this route (spec §5.8). */
  trial?: boolean;
  /**
   * A POST that computes an answer instead of writing (v1 asset correlation, spec §5.8: read-only partner keys may
   * call it): it needs the declared scope instead of `write`. The admin role is still required (spec §5.6).
   */
  query?: boolean;
  /** false, or the tenant resource and ids (required on every route: the meta-test checks it). */
  tenant?: TenantDecl | false;
  /** internal_or_session: a text/html answer is public (the status page); JSON needs the credential. */
  publicHtml?: boolean;
  /**
   * A write on the caller's own identity (its session, its profile, its organization switch): the declared role
   * applies (viewer allowed) instead of admin. The write scope, the Origin and the CSRF token still apply.
   */
  self?: boolean;
  /** @deprecated Implied by the method: every write needs the admin role and the write scope. */
  write?: boolean;
}

/** Who passed internal_or_session: the internal monitor, a signed-in member, or nobody (public HTML). */
export type Access = 'internal' | 'member' | null;

declare module 'fastify' {
  interface FastifyInstance {
    /** The monthly allowance counter (flushed every second and on close). */
    usageMeter: UsageMeter;
    /**
     * For a request answered before routing (a malformed URL: no hook runs for it): a valid API key's call is
     * counted and reported in X-RateLimit-* as for any API-key answer ('key'); 'refused' when a presented key is
     * not valid, 'none' when no key is presented.
     */
    meterUnrouted(req: FastifyRequest, reply: FastifyReply): Promise<'key' | 'refused' | 'none'>;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /**
     * The principal, non-null by type, for the handlers of routes whose policy requires a caller (modes key,
     * session, key_or_session: the onRequest hook refused the request before the handler otherwise). Read where no
     * principal was resolved (a public route), it throws AUTH_REQUIRED (401), never hands out a null.
     */
    readonly caller: Principal;
    /** The session cookie's value when the caller is signed in by session (logout and org switch end it). */
    sessionToken: string | null;
    /**
     * A session form post whose CSRF token is in the body (`_csrf`): checked once the body is parsed, before
     * validation ('form'), or for a multipart form, whose fields a page's multipart scope attaches to the body in its
     * own preValidation hook, before the handler ('parts').
     */
    csrfPending: false | 'form' | 'parts';
    /** internal_or_session routes: who passed. */
    access: Access;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
}

/**
 * The role and scope a call needs: the route's declaration, raised to admin and write for every write (a
 * self-service write keeps its declared role; the write scope is always required).
 */
export function requirements(method: string, auth: RouteAuth): { role: Role; scope: Scope | null } {
  const w = isWrite(method);
  const declared = auth.role ?? 'viewer';
  const raise = w && !auth.self && !roleAtLeast(declared, 'admin');
  return { role: raise ? 'admin' : declared, scope: w && !auth.query ? 'write' : (auth.scope ?? null) };
}

function bearer(req: FastifyRequest): string | null | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

export interface AuthDeps {
  identity: IdentityService;
  clock: Clock;
  meter: UsageMeter;
  /** Origin of the configured public URL: session writes must come from it. */
  publicOrigin: string;
  /** Session cookies carry Secure when the public URL is https. */
  secureCookies: boolean;
  internalKey: string | null;
  parseCookie: (header: string) => Record<string, string | undefined>;
}

/**
 * Reads the caller's credential: an API key (Bearer) or a session cookie. A presented key that is malformed,
 * unknown, revoked or expired is refused (401) even on public routes; a stale session cookie is ignored on public
 * routes (`optionalSession`) and refused elsewhere, and cleared in both cases. A valid key's call is counted
 * against the organization's monthly allowance, reported in X-RateLimit-Limit/Used/Remaining (spec §8).
 */
async function identify(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AuthDeps,
  optionalSession: boolean,
): Promise<Principal | null> {
  const token = bearer(req);
  if (token === null) {
    throw new ApiError('AUTH_REQUIRED', {
      message: 'Invalid API key: use the header Authorization: Bearer <API key>',
      detail: { error: 'invalid_api_key' },
    });
  }
  if (token !== undefined) {
    // A key not accepted is the service's refusal, answered by the error handler (http/refusals.ts).
    const principal = await deps.identity.authenticateKey(token);
    await reportAllowance(reply, deps, principal);
    return principal;
  }
  const cookieHeader = req.headers.cookie;
  const sessionToken = cookieHeader ? deps.parseCookie(cookieHeader)[SESSION_COOKIE] : undefined;
  if (!sessionToken) return null;
  const p = await deps.identity.authenticateSession(sessionToken);
  if (p) {
    req.sessionToken = sessionToken;
    return p;
  }
  // A stale cookie is dropped from the browser, with the same attributes it was issued with.
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(deps.secureCookies));
  if (optionalSession) return null;
  throw new ApiError('AUTH_REQUIRED', {
    message: 'Session expired; sign in again',
    detail: { error: 'session_expired' },
  });
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

/**
 * internal_or_session (the health JSON, spec §5.3): the internal monitor by X-Internal-Key (constant-time
 * compare), or a signed-in session. With `publicHtml`, a browser asking for HTML passes without either (the
 * public status page) and an API key only gets that public view; during a database outage the public page
 * still renders.
 */
async function internalOrSession(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AuthDeps,
  auth: RouteAuth,
): Promise<Access> {
  const presented = req.headers['x-internal-key'];
  if (presented !== undefined) {
    if (deps.internalKey && typeof presented === 'string' && safeEqual(presented, deps.internalKey)) return 'internal';
    throw new ApiError('AUTH_REQUIRED', { message: 'Invalid internal key', detail: { error: 'invalid_internal_key' } });
  }
  const html = auth.publicHtml === true && prefersHtml(req.headers.accept);
  let p: Principal | null;
  try {
    p = await identify(req, reply, deps, true);
  } catch (e) {
    if (html && isConnectionError(e)) return null;
    throw e;
  }
  if (p?.via === 'session') return 'member';
  if (html) return null;
  if (p)
    throw new ApiError('SESSION_REQUIRED', {
      message: 'This call needs a signed-in session or the X-Internal-Key header; API keys are not accepted here',
    });
  throw new ApiError('AUTH_REQUIRED', {
    message: 'This call needs the X-Internal-Key header or a signed-in session',
    detail: { error: 'auth_required' },
  });
}

/** `meter`: the monthly allowance counter, made by the app over the store (store/usage-meter.ts); closed with the app. */
export function registerAuth(
  app: FastifyInstance,
  base: { meter: UsageMeter; clock: Clock; identity: IdentityService; publicUrl: string; internalKey: string | null },
) {
  const { meter } = base;
  const publicUrl = new URL(base.publicUrl);
  const deps: AuthDeps = {
    identity: base.identity,
    clock: base.clock,
    meter,
    publicOrigin: publicUrl.origin,
    secureCookies: publicUrl.protocol === 'https:',
    internalKey: base.internalKey,
    parseCookie: (h) => app.parseCookie(h),
  };
  app.decorate('usageMeter', meter);
  app.decorate('meterUnrouted', async (req: FastifyRequest, reply: FastifyReply) => {
    const token = bearer(req);
    if (token === undefined) return 'none';
    if (token === null) return 'refused';
    let principal: Principal;
    try {
      principal = await deps.identity.authenticateKey(token);
    } catch (e) {
      caught(e, KEY_REFUSAL_CODES);
      return 'refused';
    }
    await reportAllowance(reply, deps, principal);
    return 'key';
  });
  app.addHook('onClose', async () => {
    await meter.close();
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('caller', {
    getter(this: FastifyRequest): Principal {
      if (this.principal === null) throw new ApiError('AUTH_REQUIRED');
      return this.principal;
    },
  });
  app.decorateRequest('access', null);
  app.decorateRequest('sessionToken', null);
  app.decorateRequest('csrfPending', false);
  // A form post's CSRF token arrives in the body: checked once parsed, and removed before validation.
  const bodyToken = (stage: 'form' | 'parts') => (req: FastifyRequest, _reply: unknown, done: (e?: Error) => void) => {
    if (req.csrfPending !== stage) return done();
    const body = isRecord(req.body) ? req.body : null;
    const token = body ? body[CSRF_FIELD] : undefined;
    try {
      verifyCsrf(req.sessionToken!, typeof token === 'string' ? token : undefined);
      if (body) delete body[CSRF_FIELD];
    } catch (e) {
      return done(asError(e));
    }
    done();
  };
  app.addHook('preValidation', bodyToken('form'));
  app.addHook('preHandler', bodyToken('parts'));
  // Deny by default: an API route without a policy is a startup error, not an open route. Pages outside /api/
  // (the /docs reference) read no credential unless they declare one.
  app.addHook('onRoute', (route) => {
    if (route.config?.auth) return;
    if (route.url.startsWith('/api/'))
      throw new Error(`Route ${String(route.method)} ${route.url} declares no policy (config.auth)`);
    route.config = { ...(route.config ?? {}), auth: { mode: 'none', tenant: false } };
  });

  // onRequest, before the body is read or validated: an unauthenticated caller never gets its body parsed,
  // and every API-key response (400/422/404 included) carries the monthly allowance headers. Unmatched
  // requests (404/405) read credentials as a public route does.
  // Callback-style with a synchronous path when there is nothing to look up (no credential presented): no
  // promise, no microtask turn for anonymous traffic.
  app.addHook('onRequest', (req, reply, done) => {
    const auth: RouteAuth = routeConfig(req).auth ?? { mode: 'public' };
    if (auth.mode === 'none') return done();
    if (auth.mode === 'internal_or_session') {
      internalOrSession(req, reply, deps, auth)
        .then((access) => {
          req.access = access;
          if (access === 'member' || access === 'internal') checkOrigin(req, deps.publicOrigin);
        })
        .then(
          () => done(),
          (e: Error) => done(e),
        );
      return;
    }
    if (req.headers.authorization === undefined && req.headers.cookie === undefined) {
      try {
        req.principal = null;
        enforce(req, auth);
      } catch (e) {
        return done(asError(e));
      }
      return done();
    }
    identify(req, reply, deps, auth.mode === 'public')
      .then((p) => {
        req.principal = p;
        enforce(req, auth);
        checkOrigin(req, deps.publicOrigin);
        checkCsrf(req);
      })
      .then(
        () => done(),
        (e: Error) => done(e),
      );
  });
}

/** Applies a route's policy to the resolved principal. Exported for unit tests of the matrix. */
export function enforce(req: { principal: Principal | null; method: string }, auth: RouteAuth): void {
  const p = req.principal;
  if (auth.mode === 'public' && !p) return;
  if (!p) {
    const msg =
      auth.mode === 'session'
        ? 'A signed-in browser session is required'
        : 'API key required: send Authorization: Bearer <API key>';
    throw new ApiError('AUTH_REQUIRED', { message: msg, detail: { error: 'auth_required' } });
  }
  if (auth.mode === 'session' && p.via !== 'session') throw new ApiError('SESSION_REQUIRED');
  if (auth.mode === 'key' && p.via !== 'key') throw new ApiError('API_KEY_REQUIRED');
  if (p.kind === 'partner' && !auth.partner) throw new ApiError('PARTNER_SCOPE');
  if (p.kind === 'trial' && !auth.trial) {
    throw new ApiError('TRIAL_SCOPE', { detail: { contact_url: CONTACT_URL } });
  }
  const need = requirements(req.method, auth);
  if (need.scope && !p.scopes.includes(need.scope)) {
    throw new ApiError('INSUFFICIENT_SCOPE', {
      message: `This API key lacks the ${need.scope} scope`,
      detail: { required_scope: need.scope },
    });
  }
  if (!roleAtLeast(p.role, need.role)) {
    // A read an admin role guards (the key list, the client organizations) is not a write: say what it needs.
    if (p.role === 'viewer')
      throw new ApiError(
        'VIEWER_ROLE',
        isWrite(req.method)
          ? {}
          : { message: `Read-only members (viewer role) cannot use this; it needs the ${need.role} role` },
      );
    throw new ApiError('FORBIDDEN', {
      message: `This call needs the ${need.role} role`,
      detail: { required_role: need.role },
    });
  }
}
