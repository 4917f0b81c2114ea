// Accounts (docs/accounts.md): sign-in by email link, sessions, the profile, the organization, the
// team and its invitations, API keys and the free trial (services/accounts/keys.ts), account deletion and purge, and the client
// organizations of a managed-service provider. Never sees request or reply: callers pass a Principal (who asks)
// and plain input, and get data or an AccountError the route maps to its spec §7 answer.
// One part per capability in services/accounts/ (sessions, profile, team, lifecycle, providers), over the shared
// context (accounts/context.ts); this file puts them together.
import type { Store } from '../store/db.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { createMailer } from './mailer.ts';
import { systemClock } from '../lib/clock.ts';
import { createAccountKeys } from './accounts/keys.ts';
import { accountsContext, type AccountsDeps } from './accounts/context.ts';
import { sessionsPart } from './accounts/sessions.ts';
import { profilePart } from './accounts/profile.ts';
import { teamPart } from './accounts/team.ts';
import { lifecyclePart } from './accounts/lifecycle.ts';
import { providersPart } from './accounts/providers.ts';

export { MAX_PREFERENCE_KEYS } from './accounts/profile.ts';

export function createAccountsService(deps: AccountsDeps) {
  const ctx = accountsContext(deps);
  const keys = createAccountKeys({ db: ctx.db, clock: ctx.clock });
  return {
    ...sessionsPart(ctx),
    ...profilePart(ctx),
    ...teamPart(ctx),
    ...keys,
    ...lifecyclePart(ctx),
    ...providersPart(ctx),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

/** The accounts service for operator commands and jobs: system time, and no email sent. */
export function operatorAccounts(
  store: Store,
  config: { publicUrl: string; mailFrom: string; planCaps: Readonly<PlanCapsTable> },
): AccountsService {
  const mailer = createMailer({ smtpUrl: null, from: config.mailFrom, info: () => {}, warn: () => {} });
  return createAccountsService({
    store,
    clock: systemClock,
    mailer,
    publicUrl: config.publicUrl,
    planCaps: config.planCaps,
    warn: () => {},
  });
}
