// TypeBox schemas of the account endpoints (docs/accounts.md); their refusals' §7 answers are rows of
// http/refusals.ts.
import { Type } from 'typebox';
import { DisplayName, NAME_TEXT_PATTERN, StringEnum } from './common.ts';
import type { RouteError } from '../openapi-errors.ts';
import { MAX_PREFERENCE_KEYS } from '../../services/accounts.ts';
import { LOGIN_LIMITS, RECIPIENT_MAIL_LIMIT } from '../../domain/accounts.ts';
import { KEY_KINDS, ROLES, SCOPES, TIERS } from '../../domain/tiers.ts';
import { KEY_LABEL_MAX } from '../../domain/keys.ts';

/** Action endpoints take no input: an empty JSON object, or no body at all (see `acceptNoBody`). */
export const NoBody = Type.Object({}, { additionalProperties: false, examples: [{}] });

/** A plugin's writes may come without a body: it is read as {} (validated against NoBody or the route's schema). */
export function acceptNoBody(app: {
  addHook(name: 'preValidation', fn: (req: { body: unknown; method: string }) => Promise<void>): unknown;
}) {
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && req.method !== 'GET') req.body = {};
  });
}

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);
/** OpenAPI description of a plan-cap refusal, for the routes that create environments or store assets. */
export const capRefusalDescription = (resource: 'environments' | 'assets' | 'webhooks') =>
  `Past the organization's ${resource} cap (plan or override, -1 = unlimited): 403 in the error envelope, error.code FORBIDDEN, ` +
  `error.detail {error: "cap_exceeded", resource: "${resource}", limit, used${resource === 'assets' ? ', requested' : ''}}; nothing is stored. ` +
  'The counts are those GET /api/v1/account/usage reports.';

/** OpenAPI (a route's schema.errors): a plan-cap refusal of `resource`. */
export const capExceeded = (resource: 'environments' | 'assets' | 'members' | 'webhooks'): RouteError => ({
  key: 'CAP_EXCEEDED',
  when: `past the organization's ${resource} cap (detail.resource "${resource}", limit, used${resource === 'members' ? '; pending invitations count' : ''}); nothing is stored`,
});

const keysTier: RouteError = { key: 'UPGRADE_REQUIRED', when: 'API keys need the Professional plan or above' };

function recipientLimited(what: string): RouteError {
  return {
    key: 'RATE_LIMITED',
    when: `more than ${RECIPIENT_MAIL_LIMIT.points} invitation and address-change emails to the address in ${RECIPIENT_MAIL_LIMIT.durationSec / 60} minutes: this ${what} is not stored (detail.retry_after, Retry-After)`,
  };
}

/** GET /api/v1/account/trial (domain/keys.ts trialStatus). */
export const TrialStatusView = Type.Object(
  {
    status: StringEnum(['not_started', 'active', 'ended']),
    reason: Type.Union([StringEnum(['expired', 'ended', 'limit']), Type.Null()], {
      description:
        'Why the trial ended: 14 days passed (expired), ended early (ended), or the asset checks are used up (limit); null otherwise',
    }),
    started_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the trial key stops: 14 days after the start',
    }),
    per_request: Type.Integer({ description: 'Most assets in one request' }),
    total_checks: Type.Integer({ description: 'Asset checks in the whole trial' }),
    used: Type.Integer(),
    remaining: Type.Integer({ description: '0 once the trial has ended' }),
  },
  { additionalProperties: false },
);

/** OpenAPI (the routes' schema.errors): what each account operation's refusals answer, through http/refusals.ts. */
export const ACCOUNT_ERRORS = {
  requestLogin: [
    {
      key: 'RATE_LIMITED',
      when: `more than ${LOGIN_LIMITS.perAddress.points} sign-in requests from this address, or ${LOGIN_LIMITS.perEmail.points} for this email address, in ${LOGIN_LIMITS.perEmail.durationSec / 60} minutes (detail.retry_after, Retry-After)`,
    },
  ],
  completeLogin: [
    { key: 'AUTH_REQUIRED', error: 'login_link_invalid', when: 'the sign-in link is invalid, expired or already used' },
    { key: 'FORBIDDEN', error: 'no_active_organization', when: 'the person belongs to no active organization' },
  ],
  acceptInvitation: [
    {
      key: 'AUTH_REQUIRED',
      error: 'invitation_invalid',
      when: 'the invitation is invalid, expired, withdrawn or already used',
    },
  ],
  confirmEmail: [
    {
      key: 'AUTH_REQUIRED',
      error: 'login_link_invalid',
      when: 'the confirmation link is invalid, expired or already used',
    },
    { key: 'CONFLICT', error: 'email_taken', when: 'another account already uses this email address' },
  ],
  switchOrganization: [{ key: 'NOT_FOUND', when: 'you are not a member of an active organization with this id' }],
  invite: [
    { key: 'CONFLICT', error: 'already_member', when: 'the address is already a member' },
    capExceeded('members'),
    recipientLimited('invitation'),
  ],
  removeMember: [{ key: 'FORBIDDEN', error: 'owner_cannot_be_removed', when: 'the owner cannot be removed' }],
  withdrawInvitation: [
    {
      key: 'NOT_FOUND',
      when: 'no pending invitation of your organization has this id (accepted, withdrawn or expired ones included)',
    },
  ],
  keys: [keysTier],
  createKey: [
    keysTier,
    {
      key: 'INSUFFICIENT_SCOPE',
      when: "an API key asks for a key with a scope it lacks itself (scopes not given: the kind's default, read and write for a standard key)",
    },
  ],
  updateMe: [
    {
      key: 'FORBIDDEN',
      error: 'session_required',
      when: 'email is given with an API key: the sign-in address changes from a browser session only',
    },
    recipientLimited('address-change'),
    {
      key: 'VALIDATION_ERROR',
      when: "the name looks like another member's of one of your organizations (Unicode confusables skeleton: detail[].type value_error.confusable), or holds invisible characters",
    },
  ],
  rotateKey: [
    keysTier,
    { key: 'CONFLICT', error: 'key_revoked', when: 'the key is revoked; create a new one instead' },
    {
      key: 'FORBIDDEN',
      error: 'not_key_holder',
      when: "another member's key: only its holder may rotate it (the new key is shown to whoever rotates); revoke it instead",
    },
    { key: 'VALIDATION_ERROR', when: 'trial keys are not rotated' },
  ],
  startTrial: [
    {
      key: 'TRIAL_UNAVAILABLE',
      when: 'the organization is not on the Free plan, or its trial has already started (detail.contact_url)',
    },
    { key: 'TRIAL_CONFLICT', when: 'the trial of this organization has ended (detail.contact_url)' },
  ],
  deleteAccount: [
    { key: 'CONFIRMATION_REQUIRED', when: 'confirmation is not the exact text (detail.confirmation gives it)' },
  ],
} satisfies Record<string, RouteError[]>;

export const Email = Type.String({ minLength: 3, maxLength: 320, description: 'An email address' });
export const IdParam = (name: string) =>
  Type.Object(
    { [name]: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
    { additionalProperties: false },
  );

const CapsSchema = Type.Object({
  members: Type.Integer({ description: '-1 = no cap' }),
  environments: Type.Integer({ description: '-1 = no cap' }),
  assets: Type.Integer({ description: '-1 = no cap' }),
  webhooks: Type.Integer({ description: 'Webhooks of the organization (each alert goes to every one); -1 = no cap' }),
});

export const Organization = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tier: StringEnum(TIERS, { description: 'The plan; read-only through the API' }),
  status: StringEnum(['active', 'deactivated'] as const),
  created_at: DateTime,
  permissions: Type.Object({
    search_max_results: Type.Integer(),
    sage_visible: Type.Boolean(),
    virtual_patch: Type.Boolean(),
    api_keys: Type.Boolean(),
    webhook_delivery: Type.Boolean(),
  }),
  plan_caps: CapsSchema,
  cap_overrides: Type.Object(
    {
      members: Type.Optional(Type.Integer()),
      environments: Type.Optional(Type.Integer()),
      assets: Type.Optional(Type.Integer()),
      webhooks: Type.Optional(Type.Integer()),
    },
    { description: 'Per-organization overrides (set by an operator)' },
  ),
  caps: CapsSchema,
  provider_org_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The managed-service provider of this client organization',
  }),
});

export const UpdateOrganization = Type.Object(
  { name: DisplayName(200) },
  { additionalProperties: false, examples: [{ name: 'Plant operations' }] },
);

export const Preferences = Type.Record(
  Type.String({ maxLength: 64 }),
  Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean(), Type.Null()]),
  {
    maxProperties: MAX_PREFERENCE_KEYS,
    description: `Free-form per-person settings (e.g. {"theme": "dark"}); merged into the stored ones (a null value removes a key), which hold at most ${MAX_PREFERENCE_KEYS} keys`,
  },
);

export const UpdateMe = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200, pattern: NAME_TEXT_PATTERN })),
    preferences: Type.Optional(Preferences),
    email: Type.Optional(Email),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'Runner Name', preferences: { theme: 'dark' } }],
  },
);

export const TeamMember = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  role: StringEnum(ROLES),
  created_at: DateTime,
});
export const Invitation = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: StringEnum(['admin', 'viewer'] as const),
  created_at: DateTime,
  expires_at: DateTime,
});
export const Team = Type.Object({ members: Type.Array(TeamMember), invitations: Type.Array(Invitation) });
export const InviteBody = Type.Object(
  { email: Email, role: StringEnum(['admin', 'viewer'] as const) },
  { additionalProperties: false, examples: [{ email: 'new.colleague@example.test', role: 'viewer' }] },
);

export const ApiKey = Type.Object({
  id: Type.Integer(),
  key_start: Type.String({ description: 'Display prefix' }),
  kind: StringEnum(KEY_KINDS),
  scopes: Type.Array(StringEnum(SCOPES)),
  label: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  expires_at: NullableDateTime,
  revoked_at: NullableDateTime,
  last_used_at: NullableDateTime,
  member: Type.Object({ id: Type.Integer(), email: Type.String() }),
});
export const IssuedKey = Type.Object({
  key: Type.String({ description: 'The API key: shown once, never again' }),
  id: Type.Integer(),
  key_start: Type.String(),
  kind: StringEnum(KEY_KINDS),
  scopes: Type.Array(StringEnum(SCOPES)),
  label: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  expires_at: NullableDateTime,
});
export const CreateKey = Type.Object(
  {
    kind: Type.Optional(
      StringEnum(['standard', 'partner'] as const, {
        description: 'standard (default) or partner (read-only); trial keys come from POST /account/trial',
      }),
    ),
    scopes: Type.Optional(Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: 2, uniqueItems: true })),
    label: Type.Optional(
      Type.Union([DisplayName(KEY_LABEL_MAX, { description: 'Descriptive name, stored trimmed' }), Type.Null()], {
        description: 'null or absent: no label',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ kind: 'standard', scopes: ['read'], label: 'SIEM export' }] },
);
export const RevokedKey = Type.Object({ id: Type.Integer(), key_start: Type.String(), revoked_at: DateTime });

export const Client = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tier: StringEnum(TIERS),
  status: StringEnum(['active', 'deactivated'] as const),
  created_at: DateTime,
  deactivated_at: NullableDateTime,
});
