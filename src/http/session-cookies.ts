// The browser session's cookies and the checks on its writes: the session and CSRF cookies, the Origin check, and
// the double-submit CSRF token (in the X-CSRF-Token header, or the `_csrf` field of a form).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { safeEqual, sha256Hex } from '../lib/crypto.ts';
import type { Principal } from '../services/identity.ts';

export const SESSION_COOKIE = 'vi_session';
/** The CSRF token's cookie (readable by the page; the double-submit pattern): its value goes back in X-CSRF-Token or `_csrf`. */
export const CSRF_COOKIE = 'vi_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

export function isWrite(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/** Attributes of the session cookie (set at sign-in, cleared with the same attributes when stale or signed out). */
export function sessionCookieOptions(secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };
}

/**
 * Session-authenticated writes must come from the service's own pages: the browser's Origin header must be the
 * public URL's origin (missing or foreign → 403), checked before the CSRF token (checkCsrf).
 */
export function checkOrigin(
  req: { principal: Principal | null; method: string; headers: FastifyRequest['headers'] },
  publicOrigin: string,
): void {
  if (req.principal?.via !== 'session' || !isWrite(req.method)) return;
  const origin = req.headers.origin;
  if (origin === publicOrigin) return;
  throw new ApiError('ORIGIN_REFUSED', {
    message:
      origin === undefined
        ? 'A write by browser session must carry the Origin header of this service'
        : "A write by browser session must come from this service's own origin",
    detail: { expected_origin: publicOrigin },
  });
}

/** The CSRF token of a session: derived from the session's secret token, so it cannot be forged or planted. */
export function csrfTokenFor(sessionToken: string): string {
  return sha256Hex(`vi-csrf:${sessionToken}`);
}

export function verifyCsrf(sessionToken: string, presented: string | undefined): void {
  if (presented === undefined || presented === '') {
    throw new ApiError('CSRF_REFUSED', {
      message: `A write by browser session needs the CSRF token: the ${CSRF_COOKIE} cookie's value in the X-CSRF-Token header (or the ${CSRF_FIELD} form field)`,
      detail: { error: 'csrf_token_missing' },
    });
  }
  if (!safeEqual(presented, csrfTokenFor(sessionToken))) {
    throw new ApiError('CSRF_REFUSED', {
      message: 'The CSRF token does not belong to this session; reload the page',
      detail: { error: 'csrf_token_invalid' },
    });
  }
}

/**
 * Session-authenticated writes carry the session's CSRF token (double submit, on top of the Origin check): in the
 * X-CSRF-Token header, or for an HTML form in its `_csrf` field (checked after the body is parsed).
 */
export function checkCsrf(req: FastifyRequest): void {
  if (req.principal?.via !== 'session' || !isWrite(req.method) || !req.sessionToken) return;
  const header = req.headers[CSRF_HEADER];
  const type = req.headers['content-type'] ?? '';
  if (header === undefined && type.startsWith('application/x-www-form-urlencoded')) {
    req.csrfPending = 'form';
    return;
  }
  // A multipart body is read after validation: its `_csrf` field is checked before the handler (a route that does
  // not attach the fields to the body has none, and is refused as without a token).
  if (header === undefined && type.startsWith('multipart/form-data')) {
    req.csrfPending = 'parts';
    return;
  }
  verifyCsrf(req.sessionToken, typeof header === 'string' ? header : undefined);
}

/** Sets the session and CSRF cookies of a new session (HttpOnly session; SameSite=Lax; Secure on https). */
export function setSessionCookies(reply: FastifyReply, token: string, secure: boolean, maxAgeSec: number) {
  reply.setCookie(SESSION_COOKIE, token, { ...sessionCookieOptions(secure), maxAge: maxAgeSec });
  reply.setCookie(CSRF_COOKIE, csrfTokenFor(token), {
    path: '/',
    httpOnly: false,
    sameSite: 'lax',
    secure,
    maxAge: maxAgeSec,
  });
}

export function clearSessionCookies(reply: FastifyReply, secure: boolean) {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(secure));
  reply.clearCookie(CSRF_COOKIE, { path: '/', httpOnly: false, sameSite: 'lax', secure });
}
