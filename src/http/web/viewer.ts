// Who a page is rendered for, from the request's principal: signed in by session, the navigation and the sign-out
// form (with the session's CSRF token); read with an API key, no navigation.
import type { FastifyRequest } from 'fastify';
import { csrfTokenFor } from '../session-cookies.ts';
import type { Viewer } from './layout.tsx';

export function viewerOf(req: FastifyRequest): Viewer | null {
  const p = req.principal;
  if (!p || !req.sessionToken) return null;
  return { role: p.role, csrf: csrfTokenFor(req.sessionToken) };
}
