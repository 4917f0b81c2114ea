// Operator commands for organizations and API keys. Keys are printed once, at creation; the database
// keeps only their SHA-256. Key issuance follows the same policy as the API (src/domain/keys.ts): standard keys
// need Professional or above (upgrade_required otherwise), partner keys are read-only and never for a viewer, trial
// keys are for Free organizations and expire 14 days after the organization's trial started, which an operator may
// end early (`trial end`). Operators cannot override the tier rule; they change the tier.
import { UsageError, type Command, type CliContext } from './types.ts';
import { systemClock } from '../lib/clock.ts';
import { KEY_KINDS, ROLES, SCOPES, TIERS, type KeyKind, type Role, type Scope, type Tier } from '../domain/tiers.ts';
import { createIdentityService } from '../services/identity.ts';
import { Refusal } from '../services/refusal.ts';
import { keyLabelProblem } from '../domain/keys.ts';

const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === v);
  if (found === undefined) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return found;
}

/** An optional string option (parseArgs gives a string or nothing). */
function optional(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function required(name: string, v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

function orgId(v: unknown): number {
  const s = required('org', v);
  if (!/^[1-9]\d{0,15}$/.test(s)) throw new UsageError('--org must be an organization id (a positive integer)');
  return Number(s);
}

function email(v: unknown, name: string): string {
  const s = required(name, v);
  if (!EMAIL_RE.test(s)) throw new UsageError(`--${name} is not an email address: ${s}`);
  return s.toLowerCase();
}

function scopes(v: unknown): Scope[] | undefined {
  if (v === undefined) return undefined;
  const list = (typeof v === 'string' ? v : '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new UsageError('--scopes needs at least one of read, write');
  return list.map((s) => oneOf('scopes', s, SCOPES));
}

/** The identity service over the command's database (the same rules as the API's). */
async function identityOf(ctx: CliContext) {
  return createIdentityService((await ctx.runtime()).store.db, systemClock);
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** Runs an identity operation; a refusal prints its code and message and exits 1 (JSON on stdout with --json). */
async function refusable(ctx: CliContext, fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    if (ctx.json) ctx.out(JSON.stringify({ error: { code: e.code, message: e.message } }));
    else ctx.err(`Refused (${e.code}): ${e.message}`);
    return 1;
  }
}

type Identity = Awaited<ReturnType<typeof identityOf>>;

/**
 * The identity operation `fn` on the organization of --org, with the command's other arguments (`args`, read after
 * --org and before the database is opened); refusals as `refusable` prints them.
 */
function onOrg(
  ctx: CliContext,
  v: Record<string, unknown>,
  fn: (identity: Identity, id: number) => Promise<void>,
): Promise<number>;
function onOrg<A>(
  ctx: CliContext,
  v: Record<string, unknown>,
  fn: (identity: Identity, id: number, args: A) => Promise<void>,
  args: () => A,
): Promise<number>;
async function onOrg<A>(
  ctx: CliContext,
  v: Record<string, unknown>,
  fn: (identity: Identity, id: number, args: A | undefined) => Promise<void>,
  args?: () => A,
): Promise<number> {
  const id = orgId(v.org);
  const a = args?.();
  const identity = await identityOf(ctx);
  return refusable(ctx, () => fn(identity, id, a));
}

/** Prints the answer: `json` as one line with --json, else the text lines `text` writes. */
function say(ctx: CliContext, json: unknown, text: () => void): void {
  if (ctx.json) ctx.out(JSON.stringify(json));
  else text();
}

function keyJson(k: {
  id: number;
  key?: string;
  key_start: string;
  kind: string;
  scopes: string[];
  expires_at: Date | null;
}) {
  return {
    id: k.id,
    ...(k.key ? { key: k.key } : {}),
    key_start: k.key_start,
    kind: k.kind,
    scopes: k.scopes,
    expires_at: iso(k.expires_at),
  };
}

const orgCreateCommand: Command = {
  summary: "Create an organization and its owner; prints the owner's first API key once",
  usage:
    'vulnintel org create --name N --tier free|standard|professional|api|enterprise --owner-email E [--owner-name X] [--json]',
  options: {
    name: { type: 'string' },
    tier: { type: 'string' },
    'owner-email': { type: 'string' },
    'owner-name': { type: 'string' },
  },
  async run(ctx, v) {
    const name = required('name', v.name);
    if (name.length > 200) throw new UsageError('--name is at most 200 characters');
    const tier = oneOf<Tier>('tier', v.tier, TIERS);
    const ownerEmail = email(v['owner-email'], 'owner-email');
    const identity = await identityOf(ctx);
    const r = await identity.createOrganizationWithOwner({
      name,
      tier,
      ownerEmail,
      ownerName: optional(v['owner-name']),
    });
    const note = r.key
      ? null
      : `No API key: API keys need the Professional tier or above (this organization is ${tier}).`;
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          org: { id: r.org.id, name: r.org.name, tier: r.org.tier, created_at: iso(r.org.created_at) },
          owner: { id: r.owner.id, email: r.owner.email, role: r.owner.role },
          api_key: r.key ? keyJson(r.key) : null,
          ...(note ? { note } : {}),
        }),
      );
      return;
    }
    ctx.out(
      `Organization ${r.org.id} "${r.org.name}" (${r.org.tier}) created; owner ${r.owner.email} (member ${r.owner.id}).`,
    );
    if (r.key) ctx.out(`API key ${r.key.id} (shown once; store it now):\n${r.key.key}`);
    else ctx.out(note!);
  },
};

const orgSetTierCommand: Command = {
  summary: 'Change the tier of an organization',
  usage: 'vulnintel org set-tier --org ID --tier free|standard|professional|api|enterprise [--json]',
  options: { org: { type: 'string' }, tier: { type: 'string' } },
  run: (ctx, v) =>
    onOrg(
      ctx,
      v,
      async (identity, id, tier) => {
        const before = await identity.setTier(id, tier);
        say(ctx, { org: { id, name: before.name, tier, previous_tier: before.tier } }, () =>
          ctx.out(`Organization ${id} "${before.name}": tier ${before.tier} → ${tier}.`),
        );
      },
      () => oneOf<Tier>('tier', v.tier, TIERS),
    ),
};

const keyCreateCommand: Command = {
  summary: 'Issue an API key for a member (created with --role if the email is new); prints the key once',
  usage:
    'vulnintel key create --org ID --email E [--role owner|admin|viewer] [--scopes read,write] [--kind standard|partner|trial] [--label L] [--json]',
  options: {
    org: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    scopes: { type: 'string' },
    kind: { type: 'string' },
    label: { type: 'string' },
    name: { type: 'string' },
  },
  async run(ctx, v) {
    const id = orgId(v.org);
    const mail = email(v.email, 'email');
    const role = v.role === undefined ? undefined : oneOf<Role>('role', v.role, ROLES);
    const kind = v.kind === undefined ? 'standard' : oneOf<KeyKind>('kind', v.kind, KEY_KINDS);
    const sc = scopes(v.scopes);
    const label = typeof v.label === 'string' ? v.label : null;
    const labelProblem = label === null ? null : keyLabelProblem(label);
    if (labelProblem) throw new UsageError(`--label ${labelProblem}`);
    const identity = await identityOf(ctx);
    return refusable(ctx, async () => {
      const k = await identity.issueApiKey(id, { email: mail, role, kind, scopes: sc, label, name: optional(v.name) });
      if (ctx.json) {
        ctx.out(JSON.stringify({ org_id: id, member: k.member, api_key: keyJson(k) }));
        return;
      }
      ctx.out(
        `${k.member.created ? 'New member' : 'Member'} ${k.member.email} (${k.member.role}, member ${k.member.id}).`,
      );
      ctx.out(
        `${kind} API key ${k.id}, scopes ${k.scopes.join(',')}${k.expires_at ? `, expires ${iso(k.expires_at)}` : ''} (shown once; store it now):\n${k.key}`,
      );
    });
  },
};

const keyListCommand: Command = {
  summary: 'List the API keys of one organization (never the keys themselves)',
  usage: 'vulnintel key list --org ID [--json]',
  options: { org: { type: 'string' } },
  run: (ctx, v) =>
    onOrg(ctx, v, async (identity, id) => {
      const rows = await identity.listApiKeys(id);
      const keys = rows.map((k) => ({
        ...keyJson(k),
        label: k.label,
        member: { id: k.member_id, email: k.email, role: k.role },
        created_at: iso(k.created_at),
        revoked_at: iso(k.revoked_at),
        last_used_at: iso(k.last_used_at),
      }));
      say(ctx, { org_id: id, keys }, () => {
        if (keys.length === 0) ctx.out(`Organization ${id} has no API keys.`);
        for (const k of keys) {
          const state = k.revoked_at ? `revoked ${k.revoked_at}` : k.expires_at ? `expires ${k.expires_at}` : 'active';
          ctx.out(
            `${String(k.id).padStart(6)}  ${k.key_start}…  ${k.kind.padEnd(8)} ${k.scopes.join(',').padEnd(10)} ${k.member.email} (${k.member.role})  ${state}`,
          );
        }
      });
    }),
};

const keyRevokeCommand: Command = {
  summary: 'Revoke an API key of an organization, by id or by key prefix (idempotent)',
  usage: 'vulnintel key revoke --org ID --key ID|PREFIX [--json]',
  options: { org: { type: 'string' }, key: { type: 'string' } },
  run: (ctx, v) =>
    onOrg(
      ctx,
      v,
      async (identity, id, ref) => {
        const r = await identity.revokeApiKey(id, /^\d+$/.test(ref) ? { id: Number(ref) } : { prefix: ref });
        say(ctx, { org_id: id, api_key: { id: r.id, key_start: r.key_start, revoked_at: iso(r.revoked_at) } }, () =>
          ctx.out(`API key ${r.id} (${r.key_start}…) revoked at ${iso(r.revoked_at)}.`),
        );
      },
      () => required('key', v.key),
    ),
};

const trialEndCommand: Command = {
  summary:
    "End an organization's free API trial now: its trial keys answer 403 TRIAL_ENDED (reason ended) from the next request",
  usage: 'vulnintel trial end --org ID [--json]',
  options: { org: { type: 'string' } },
  run: (ctx, v) =>
    onOrg(ctx, v, async (identity, id) => {
      const r = await identity.endTrial(id);
      const s = r.status;
      say(ctx, { org_id: id, already_ended: r.already, trial: s }, () =>
        ctx.out(
          r.already
            ? `The trial of organization ${id} had already ended (reason ${s.reason}); nothing changed.`
            : `The trial of organization ${id} is ended (${s.used} of ${s.total_checks} checks used); its trial keys are no longer accepted.`,
        ),
      );
    }),
};

/** The organization and key commands (table read by src/cli-commands.ts). */
export const IDENTITY_COMMANDS: Readonly<Record<string, Command>> = {
  'org create': orgCreateCommand,
  'org set-tier': orgSetTierCommand,
  'key create': keyCreateCommand,
  'key list': keyListCommand,
  'key revoke': keyRevokeCommand,
  'trial end': trialEndCommand,
};
