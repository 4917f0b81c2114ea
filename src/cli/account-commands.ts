// Operator commands for accounts (docs/accounts.md): a sign-in link for a person (when no SMTP is
// configured, or to help someone in), and the managed-service provider of a client organization.
import { UsageError, type Command, type CliContext } from './types.ts';
import { operatorAccounts } from '../services/accounts.ts';
import { isEmail, normalizeEmail } from '../domain/accounts.ts';

/** The accounts service over the command's database (no email is sent by these commands). */
async function accountsOf(ctx: CliContext) {
  return operatorAccounts((await ctx.runtime()).store, ctx.config);
}

function orgIdOf(name: string, v: unknown): number {
  if (typeof v !== 'string' || !/^[1-9]\d{0,15}$/.test(v))
    throw new UsageError(`--${name} must be an organization id (a positive integer)`);
  return Number(v);
}

const loginLinkCommand: Command = {
  summary: 'Print a sign-in link (valid 15 minutes, once) for the person with this email address',
  usage: 'vulnintel login-link --email E [--json]',
  options: { email: { type: 'string' } },
  async run(ctx, v) {
    const email = typeof v.email === 'string' ? normalizeEmail(v.email) : '';
    if (!isEmail(email)) throw new UsageError('--email must be an email address');
    const link = await (await accountsOf(ctx)).loginLinkFor(email);
    if (!link) {
      if (ctx.json)
        ctx.out(JSON.stringify({ error: { code: 'person_not_found', message: `No account uses ${email}` } }));
      else ctx.err(`Refused (person_not_found): no account uses ${email}`);
      return 1;
    }
    if (ctx.json) ctx.out(JSON.stringify({ email, link, expires_in_seconds: 900 }));
    else ctx.out(link);
  },
};

const orgSetProviderCommand: Command = {
  summary: 'Make an organization a client of a managed-service provider organization (--provider none: no provider)',
  usage: 'vulnintel org set-provider --org ID --provider ID|none [--json]',
  options: { org: { type: 'string' }, provider: { type: 'string' } },
  async run(ctx, v) {
    const client = orgIdOf('org', v.org);
    const provider = v.provider === 'none' ? null : orgIdOf('provider', v.provider);
    if (provider === client) throw new UsageError('An organization cannot be its own provider');
    const accounts = await accountsOf(ctx);
    await accounts.setProvider(client, provider);
    if (ctx.json) ctx.out(JSON.stringify({ org_id: client, provider_org_id: provider }));
    else
      ctx.out(
        provider === null
          ? `Organization ${client} has no provider.`
          : `Organization ${client} is a client of organization ${provider}.`,
      );
  },
};

/** Table read by src/cli-commands.ts. */
export const ACCOUNT_COMMANDS: Readonly<Record<string, Command>> = {
  'login-link': loginLinkCommand,
  'org set-provider': orgSetProviderCommand,
};
