// What the account pages share (docs/accounts.md "Pages"): server-rendered HTML, no JavaScript, forms posted as
// application/x-www-form-urlencoded with the session's CSRF token in `_csrf` (checked by the auth hook). A form
// that succeeds redirects back to /account (post/redirect/get); a refusal answers in the §7 envelope.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { csrfTokenFor } from '../../session-cookies.ts';
import { acceptFormBodies } from '../../forms.ts';
import { PAGE_CSP } from '../../web/assets.ts';
import { renderAccountPage } from '../../web/account.tsx';
import { DELETE_CONFIRMATION } from '../../../domain/accounts.ts';
import { TIER_PERMISSIONS } from '../../../domain/tiers.ts';

export const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
export const See = { 303: Type.Null({ description: 'Back to /account' }) };
export const session: { session: string[] }[] = [{ session: [] }];

/**
 * Sets up an account page plugin's scope (form bodies, the page headers on every answer) and returns what its
 * handlers use: the accounts service, whether cookies are secure, and the account page.
 */
export function accountPageKit(app: Parameters<FastifyPluginAsyncTypebox>[0]) {
  const svc = app.services.accounts;
  const secure = new URL(app.deps.config.publicUrl).protocol === 'https:';
  acceptFormBodies(app, 16 * 1024);
  app.addHook('onSend', async (_req, reply) => {
    reply
      .header('Content-Security-Policy', PAGE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'no-store');
  });

  async function accountPage(
    req: FastifyRequest,
    newKey?: string,
    notice?: string,
    trialKey?: { key: string; ends_at: string },
  ) {
    const p = req.caller;
    const admin = p.role !== 'viewer';
    const [me, org, team, keys, trial] = await Promise.all([
      svc.me(p),
      svc.organization(p),
      svc.team(p),
      admin && TIER_PERMISSIONS[p.tier].api_keys ? svc.listKeys(p) : Promise.resolve(null),
      p.tier === 'free' ? svc.trial(p) : Promise.resolve(null),
    ]);
    return renderAccountPage({
      me,
      org,
      team,
      keys,
      trial,
      csrf: csrfTokenFor(req.sessionToken!),
      newKey,
      trialKey,
      notice,
      deleteConfirmation: DELETE_CONFIRMATION,
    });
  }
  return { svc, secure, accountPage };
}
