// `vulnintel org caps`: an organization's plan-cap overrides (environments, assets, members, webhooks), reported by GET
// /api/v1/account/usage as the effective limits. A number sets the override (-1 = unlimited), `plan` clears it
// (back to the plan's cap from configuration), `unlimited` stores -1; without any cap option the command only prints the caps.
import { UsageError, type Command } from './types.ts';
import { systemClock } from '../lib/clock.ts';
import { createAccountPreferences } from '../services/account-preferences.ts';
import { CAP_RESOURCES, type CapResource } from '../domain/plan-caps.ts';

function capOption(name: string, v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  const s = typeof v === 'string' ? v.trim() : '';
  if (s === 'plan') return null;
  if (s === 'unlimited') return -1;
  if (!/^(-1|0|[1-9]\d{0,8})$/.test(s))
    throw new UsageError(
      `--${name} must be a whole number ≥ 0, "unlimited" (or --${name}=-1) or "plan" (clear the override)`,
    );
  return Number(s);
}

const orgCapsCommand: Command = {
  summary: "Show or override an organization's plan caps (environments, assets, members, webhooks)",
  usage:
    'vulnintel org caps --org ID [--environments N|unlimited|plan] [--assets N|unlimited|plan] [--members N|unlimited|plan] [--webhooks N|unlimited|plan] [--json]',
  options: {
    org: { type: 'string' },
    environments: { type: 'string' },
    assets: { type: 'string' },
    members: { type: 'string' },
    webhooks: { type: 'string' },
  },
  async run(ctx, v) {
    const raw = typeof v.org === 'string' ? v.org.trim() : '';
    if (!/^[1-9]\d{0,15}$/.test(raw)) throw new UsageError('--org must be an organization id (a positive integer)');
    const orgId = Number(raw);
    const set: Partial<Record<CapResource, number | null>> = {};
    for (const r of CAP_RESOURCES) {
      const c = capOption(r, v[r]);
      if (c !== undefined) set[r] = c;
    }
    const svc = createAccountPreferences((await ctx.runtime()).store.db, systemClock, ctx.config.planCaps);
    if (Object.keys(set).length > 0 && (await svc.setCapOverrides(orgId, set)) === false) {
      ctx.err(`No organization ${orgId}`);
      return 1;
    }
    const u = await svc.usage(orgId);
    if (!u) {
      ctx.err(`No organization ${orgId}`);
      return 1;
    }
    if (ctx.json) {
      ctx.out(JSON.stringify({ org_id: orgId, ...u }));
      return 0;
    }
    const show = (n: number) => (n < 0 ? 'unlimited' : String(n));
    ctx.out(`Organization ${orgId} (${u.tier}):`);
    for (const r of CAP_RESOURCES) {
      const l = u[r];
      ctx.out(
        `  ${r}: ${l.used} of ${show(l.limit)}${l.overridden ? ` (override; plan ${show(l.plan_limit)})` : ' (plan)'}`,
      );
    }
    return 0;
  },
};

export const PLAN_CAPS_COMMANDS: Readonly<Record<string, Command>> = { 'org caps': orgCapsCommand };
