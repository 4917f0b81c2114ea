// The triage routes' policy (docs/triage.md, docs/routes.md): reads by any member (viewers included), writes by
// an owner or admin (keys with the write scope), tenant data of the path's environment; and how the path's
// environment id and the caller are read.
import type { TenantDecl } from '../../auth.ts';
import type { Writer } from '../../../services/triage-writes.ts';
import { environmentNotFound } from '../../../services/refusal.ts';
import type { Principal } from '../../../services/identity.ts';

/** As environments.ts reads it: 1 to 15 digits (leading zeros aside) can name an environment; longer names none (404). */
function environmentIdOf(text: string): number | null {
  const digits = text.replace(/^0+(?=\d)/, '');
  return digits.length <= 15 && digits !== '0' ? Number(digits) : null;
}

/** The environment id of the path; text that names no environment is that environment's 404. */
export function envOf(text: string): number {
  const id = environmentIdOf(text);
  if (id === null) throw environmentNotFound(text);
  return id;
}

export const writerOf = (p: Principal): Writer => ({
  orgId: p.orgId,
  memberId: p.memberId,
  email: p.email,
  keyId: p.keyId,
  keyStart: p.keyStart,
});

export const ENV_ID = { in: 'params', name: 'environment_id', foreign: 'environment_not_found' } as const;
const tenant = (): TenantDecl => ({ resource: 'decisions', ids: [ENV_ID], catalog: ['cve_id'] });
export const read = () => ({
  auth: { mode: 'key_or_session' as const, role: 'viewer' as const, scope: 'read' as const, tenant: tenant() },
});
export const write = () => ({
  auth: { mode: 'key_or_session' as const, role: 'admin' as const, scope: 'write' as const, tenant: tenant() },
});
export const SECURITY: { [k: string]: string[] }[] = [{ apiKey: [] }, { session: [] }];
