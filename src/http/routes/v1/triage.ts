// Triage decisions (docs/triage.md): per environment and CVE, in VEX's words, with an append-only history.
// GET/PUT/DELETE /api/v1/environments/{environment_id}/decisions/{cve_id}, its /history, the environment's list
// (GET .../decisions), one decision applied to a filtered set (POST .../decisions/bulk), the vendor statements of
// CSAF advisories about a CVE (GET .../vendor-statements) and their adoption (POST .../adopt), and the environment's
// VEX export (GET .../vex). Reads: any member
// (viewers included); writes: owner or admin, keys with the write scope (as every write, spec §5.6).
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, collection, ok, pagination } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { NoBody, NoQuery, StringEnum } from '../../schemas/common.ts';
import { PageParams } from '../../schemas/cves.ts';
import { CVE_ID_PATTERN, CVE_ID_PATTERN_ANY_CASE } from '../../../domain/cve-id.ts';
import {
  COMMENT_MAX,
  DECISION_ASSETS_MAX,
  DECISION_STATUSES,
  JUSTIFICATIONS,
  STATEMENT_MAX,
} from '../../../domain/triage.ts';
import { BULK_MAX } from '../../../services/triage-bulk.ts';
import type { Writer } from '../../../services/triage-writes.ts';
import { environmentNotFound } from '../../../services/refusal.ts';
import type { Principal } from '../../../services/identity.ts';
import { VEX_FORMATS, type VexFormat } from '../../../services/vex.ts';
import type { TenantDecl } from '../../auth.ts';

const EnvironmentId = Type.String({
  pattern: '^[0-9]{1,19}$',
  description: 'Environment id (from POST or GET /api/v1/environments)',
});
const CveId = Type.String({ pattern: CVE_ID_PATTERN_ANY_CASE, description: 'CVE-<year>-<number>' });
const EnvParams = Type.Object({ environment_id: EnvironmentId });
const DecisionParams = Type.Object({ environment_id: EnvironmentId, cve_id: CveId });

/** As environments.ts reads it: 1 to 15 digits (leading zeros aside) can name an environment; longer names none (404). */
function environmentIdOf(text: string): number | null {
  const digits = text.replace(/^0+(?=\d)/, '');
  return digits.length <= 15 && digits !== '0' ? Number(digits) : null;
}

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Statement = (what: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: STATEMENT_MAX, description: what })));

const DecisionFieldsSchema = {
  status: StringEnum(DECISION_STATUSES, {
    description: 'VEX status: under_investigation, affected, not_affected or fixed',
  }),
  justification: Type.Optional(
    Type.Union([
      StringEnum(JUSTIFICATIONS, {
        description: "not_affected only, and required there: CISA's status justifications",
      }),
      Type.Null(),
    ]),
  ),
  impact_statement: Statement("Why the CVE does (not) touch these assets, in the team's words"),
  action_statement: Statement(
    'affected only, and required there: what is done and when ("segmented behind the cell firewall; patch at the March outage")',
  ),
  due_date: Type.Optional(
    Nullable(
      Type.String({
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
        description: 'affected only: when the action is due (YYYY-MM-DD)',
      }),
    ),
  ),
  asset_ids: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: DECISION_ASSETS_MAX,
      description: 'Narrows the decision to these assets of the environment; omitted or empty: the whole environment',
    }),
  ),
  assignee_member_id: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'A member of your organization (GET /api/v1/account/team)',
    }),
  ),
};
const Comment = Type.Optional(
  Nullable(Type.String({ maxLength: COMMENT_MAX, description: 'Kept in the history and listed with the decision' })),
);

const SetDecision = Type.Object(
  { ...DecisionFieldsSchema, comment: Comment },
  {
    additionalProperties: false,
    examples: [
      {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'The web server of the HMI is switched off on every panel of the line.',
        comment: 'Checked on site.',
      },
    ],
  },
);

const Snapshot = Type.Unsafe<object>({
  type: 'object',
  additionalProperties: true,
  description: 'The decision fields (status … assignee_member_id) and review_reasons',
});

const VendorStatement = Type.Object({
  id: Type.String({ description: '<advisory id>#<n>: names the statement to adopt' }),
  by: Type.Literal('vendor', { description: "The vendor's statement (a CSAF advisory), not the team's" }),
  advisory_id: Type.String(),
  advisory_title: Type.String(),
  advisory_url: Type.Union([Type.String(), Type.Null()]),
  status: StringEnum(['fixed', 'not_affected'] as const, {
    description: 'CSAF fixed / first_fixed, known_not_affected',
  }),
  vendor: Type.Union([Type.String(), Type.Null()]),
  product: Type.String(),
  version: Type.Union([Type.String(), Type.Null()], {
    description: 'The version branch as stated: an exact version or a range text',
  }),
  product_name: Type.String(),
  justification: Type.Union([Type.String(), Type.Null()], {
    description: "A CSAF flag naming the product (CISA's justifications)",
  }),
  impact_statement: Type.Union([Type.String(), Type.Null()]),
  action_statement: Type.Union([Type.String(), Type.Null()], {
    description: 'vendor_fix remediations naming the product',
  }),
  asset_ids: Type.Array(Type.String(), {
    description: "The environment's assets whose vendor and product (and exact version) are the statement's",
  }),
});

const Decision = Type.Object({
  environment_id: Type.Integer(),
  cve_id: Type.String({ pattern: CVE_ID_PATTERN }),
  status: StringEnum(DECISION_STATUSES),
  open: Type.Boolean({
    description: 'false for not_affected and fixed: the CVE leaves the open counts (shown, never hidden)',
  }),
  justification: Type.Union([StringEnum(JUSTIFICATIONS), Type.Null()]),
  impact_statement: Type.Union([Type.String(), Type.Null()]),
  action_statement: Type.Union([Type.String(), Type.Null()]),
  due_date: Type.Union([Type.String(), Type.Null()]),
  asset_ids: Type.Array(Type.String(), { description: 'Empty: the whole environment' }),
  assignee: Type.Union([
    Type.Object({ member_id: Type.Integer(), email: Type.String(), name: Type.String() }),
    Type.Null(),
  ]),
  review: Type.Object({
    needed: Type.Boolean({
      description:
        'A new fact arrived after the decision (KEV added, ranges changed, exploit maturity up): review it again',
    }),
    reasons: Type.Array(Type.String()),
    since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
  version: Type.Integer({ description: 'Raised by every change' }),
  source: StringEnum(['api', 'bulk', 'import'] as const),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Type.Object({
    member_id: Type.Union([Type.Integer(), Type.Null()]),
    key_id: Type.Union([Type.Integer(), Type.Null()]),
  }),
  comments: Type.Optional(
    Type.Array(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        by: Type.String(),
        member_id: Type.Union([Type.Integer(), Type.Null()]),
        text: Type.String(),
      }),
    ),
  ),
  vendor_statements: Type.Optional(
    Type.Array(VendorStatement, {
      description: "What CISA ICS advisories (CSAF) state about the CVE: the vendor's VEX, beside the team's decision",
    }),
  ),
});

const AdoptBody = Type.Object(
  {
    statement_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A vendor statement id (GET .../vendor-statements)',
    }),
    justification: Type.Optional(
      Type.Union([StringEnum(JUSTIFICATIONS), Type.Null()], {
        description: "not_affected statements whose vendor states no justification: the team's (required then)",
      }),
    ),
    comment: Comment,
  },
  {
    additionalProperties: false,
    examples: [{ statement_id: 'ICSA-23-243-04#1', justification: 'component_not_present' }],
  },
);

const HistoryEntry = Type.Object({
  id: Type.Integer(),
  action: StringEnum(['set', 'clear', 'bulk', 'import', 'review_flagged'] as const),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    member_id: Type.Union([Type.Integer(), Type.Null()]),
    key_id: Type.Union([Type.Integer(), Type.Null()]),
    label: Type.String(),
  }),
  before: Type.Union([Snapshot, Type.Null()]),
  after: Type.Union([Snapshot, Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
});

const STATUS_LIST = `^(${DECISION_STATUSES.join('|')})(,(${DECISION_STATUSES.join('|')}))*$`;
const ListQuery = Type.Object(
  {
    ...PageParams,
    status: Type.Optional(
      Type.String({
        pattern: STATUS_LIST,
        description: 'under_investigation, affected, not_affected, fixed; several comma-separated',
      }),
    ),
    review: Type.Optional(
      StringEnum(['true', 'false'] as const, {
        description: 'true: only decisions flagged "review again"; false: only the others',
      }),
    ),
    assignee_member_id: Type.Optional(Type.Integer({ minimum: 1 })),
    cve_id: Type.Optional(CveId),
    asset_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Decisions covering this asset (environment-wide ones included)',
      }),
    ),
    due_before: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'affected decisions due before this date' }),
    ),
  },
  { additionalProperties: false },
);

const HistoryQuery = Type.Object({ ...PageParams }, { additionalProperties: false });
const ClearQuery = Type.Object(
  {
    comment: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMENT_MAX, description: 'Why it is cleared (kept in the history)' }),
    ),
  },
  { additionalProperties: false },
);

const BulkBody = Type.Object(
  {
    filter: Type.Object(
      {
        cve_ids: Type.Optional(
          Type.Array(CveId, {
            maxItems: BULK_MAX,
            description: 'These CVEs; alone, any CVE of the corpus, else narrowing the other criteria',
          }),
        ),
        asset_ids: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
            maxItems: 1000,
            description: 'CVEs stored for these assets',
          }),
        ),
        vendor: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: "Substring (any case) of the asset's vendor or the matching range's",
          }),
        ),
        product: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: "Substring (any case) of the asset's product or the matching range's",
          }),
        ),
        attack_vector: Type.Optional(
          StringEnum(['N', 'A', 'L', 'P'] as const, {
            description: 'CVSS attack vector: N network, A adjacent network, L local, P physical',
          }),
        ),
        severity: Type.Optional(
          Type.Array(StringEnum(['critical', 'high', 'medium', 'low', 'none'] as const), { maxItems: 5 }),
        ),
        correlation_status: Type.Optional(
          Type.Array(StringEnum(['affected', 'needs_review', 'not_affected'] as const), {
            maxItems: 3,
            description: 'The stored correlation verdict',
          }),
        ),
        known_exploited: Type.Optional(Type.Boolean()),
        decision: Type.Optional(
          Type.Array(StringEnum([...DECISION_STATUSES, 'none'] as const), {
            maxItems: 5,
            description: "The CVE's current decision; none: undecided",
          }),
        ),
      },
      {
        additionalProperties: false,
        description:
          "Selects among the CVEs of the environment's stored correlation results (all criteria must hold); at least one criterion",
      },
    ),
    decision: Type.Object(DecisionFieldsSchema, { additionalProperties: false }),
    comment: Comment,
    dry_run: Type.Optional(Type.Boolean({ description: 'Answer the selection without writing anything' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        filter: { product: 'SIMATIC S7-1500', attack_vector: 'A', decision: ['none'] },
        decision: {
          status: 'not_affected',
          justification: 'inline_mitigations_already_exist',
          impact_statement: 'The cell network is reached only through the cell firewall.',
        },
        comment: 'Cell firewall review 2026-11',
      },
    ],
  },
);

const BulkResult = Type.Object({
  matched: Type.Integer({ description: 'CVEs the filter selected' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({ description: 'Selected CVEs whose decision already had these fields' }),
  dry_run: Type.Boolean(),
  cve_ids: Type.Array(Type.String(), { description: 'The selected CVEs, in id order' }),
});

const ImportResult = Type.Object({
  format: StringEnum(['openvex', 'cyclonedx', 'csaf'] as const),
  document_id: Type.Union([Type.String(), Type.Null()], {
    description: "The document's @id (OpenVEX) or serialNumber (CycloneDX)",
  }),
  statements: Type.Integer({ description: 'Statements (vulnerabilities) the document holds' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Array(
    Type.Object({
      index: Type.Integer({ description: "The statement's position in the document, from 0" }),
      cve_id: Type.Union([Type.String(), Type.Null()]),
      reason: Type.String(),
    }),
  ),
  dry_run: Type.Boolean(),
});

const writerOf = (p: Principal): Writer => ({
  orgId: p.orgId,
  memberId: p.memberId,
  email: p.email,
  keyId: p.keyId,
  keyStart: p.keyStart,
});

const ENV_ID = { in: 'params', name: 'environment_id', foreign: 'environment_not_found' } as const;
const tenant = (): TenantDecl => ({ resource: 'decisions', ids: [ENV_ID], catalog: ['cve_id'] });
const read = () => ({
  auth: { mode: 'key_or_session' as const, role: 'viewer' as const, scope: 'read' as const, tenant: tenant() },
});
const write = () => ({
  auth: { mode: 'key_or_session' as const, role: 'admin' as const, scope: 'write' as const, tenant: tenant() },
});
const VEX_FILE: Record<VexFormat, string> = { openvex: 'openvex.json', csaf: 'csaf.json', cyclonedx: 'cdx.json' };
const SECURITY: { [k: string]: string[] }[] = [{ apiKey: [] }, { session: [] }];

const triage: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.triage;
  /** The environment id of the path; text that names no environment is that environment's 404. */
  const envOf = (text: string) => {
    const id = environmentIdOf(text);
    if (id === null) throw environmentNotFound(text);
    return id;
  };

  app.get(
    '/api/v1/environments/:environment_id/decisions',
    {
      schema: {
        tags: ['triage'],
        summary:
          "An environment's triage decisions, most recently changed first, with filters (any member; viewers too)",
        security: SECURITY,
        params: EnvParams,
        querystring: ListQuery,
        response: { 200: CollectionEnvelope(Decision, Type.Object({})) },
      },
      config: { auth: { ...read().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const q = req.query;
      const r = await svc.list(
        { tier: req.caller.tier, orgId: req.caller.orgId },
        env,
        {
          status: q.status?.split(',') as never,
          review: q.review === undefined ? undefined : q.review === 'true',
          assignee_member_id: q.assignee_member_id,
          cve_id: q.cve_id?.toUpperCase(),
          asset_id: q.asset_id,
          due_before: q.due_before,
        },
        q,
      );
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  app.post(
    '/api/v1/environments/:environment_id/decisions/bulk',
    {
      schema: {
        tags: ['triage'],
        summary: `Apply one decision to every CVE of the environment a filter selects, at most ${BULK_MAX} (owner or admin; keys need the write scope)`,
        description:
          'Example: every CVE of product X whose CVSS vector needs adjacent-network access. All or nothing; each changed decision gets its history row (action bulk). dry_run answers the selection only.',
        security: SECURITY,
        params: EnvParams,
        querystring: NoQuery,
        body: BulkBody,
        response: { 200: Envelope(BulkResult, Type.Object({})) },
      },
      config: { auth: { ...write().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.bulk(writerOf(req.caller), env, req.body);
      return ok(req, r, {});
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary: "One CVE's decision in an environment, with its comments (any member). None: 404 decision_not_found",
        security: SECURITY,
        params: DecisionParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'decision_not_found', when: 'the CVE has no decision in this environment' },
        ],
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.get(req.caller.orgId, env, req.params.cve_id.toUpperCase());
      return ok(req, r.decision, {});
    },
  );

  app.put(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Set one CVE's decision in an environment, replacing the current one (owner or admin; keys need the write scope)",
        description:
          'not_affected needs a justification from CISA\'s list; affected needs an action_statement and may have a due_date. The CVE must be in the corpus (404 cve_not_found). Setting it again clears "review again". 201 when new, 200 when replaced.',
        security: SECURITY,
        params: DecisionParams,
        querystring: NoQuery,
        body: SetDecision,
        response: { 200: Envelope(Decision, Type.Object({})), 201: Envelope(Decision, Type.Object({})) },
        errors: [{ key: 'NOT_FOUND', error: 'cve_not_found', when: 'the CVE is not in the corpus' }],
      },
      config: write(),
    },
    async (req, reply) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.set(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.body);
      reply.code(r.created ? 201 : 200);
      return ok(req, r.decision, {});
    },
  );

  app.delete(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Clear one CVE's decision in an environment: the CVE is undecided again; its history stays (owner or admin; keys need the write scope)",
        security: SECURITY,
        params: DecisionParams,
        querystring: ClearQuery,
        body: NoBody,
        response: { 200: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'decision_not_found', when: 'the CVE has no decision in this environment' },
        ],
      },
      config: write(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.clear(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.query.comment ?? null);
      return ok(req, r.removed, {});
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id/history',
    {
      schema: {
        tags: ['triage'],
        summary:
          "The append-only history of one CVE's decision in an environment, oldest first: who, when, the fields before and after (any member)",
        security: SECURITY,
        params: DecisionParams,
        querystring: HistoryQuery,
        response: { 200: CollectionEnvelope(HistoryEntry, Type.Object({})) },
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.history(
        { tier: req.caller.tier, orgId: req.caller.orgId },
        env,
        req.params.cve_id.toUpperCase(),
        req.query,
      );
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id/vendor-statements',
    {
      schema: {
        tags: ['triage'],
        summary:
          "What CSAF advisories' vendors state about one CVE (fixed, not affected), with the environment's assets each names, decided or not (any member)",
        security: SECURITY,
        params: DecisionParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Array(VendorStatement), Type.Object({})) },
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.vendorStatements(req.caller.orgId, env, req.params.cve_id.toUpperCase());
      return ok(req, r.items, {});
    },
  );

  app.post(
    '/api/v1/environments/:environment_id/decisions/:cve_id/adopt',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Adopt a vendor statement as the team's decision in one call (owner or admin; keys need the write scope)",
        description:
          "The decision takes the statement's status, the vendor's justification (else the one given; a not_affected statement without either is refused like any not_affected without one), its impact statement (else one naming the advisory), its vendor_fix as the action statement, narrowed to the assets the statement names (none: the whole environment). Written like PUT, its history row commented with the statement. 201 when new, 200 when replaced. docs/triage.md.",
        security: SECURITY,
        params: DecisionParams,
        querystring: NoQuery,
        body: AdoptBody,
        response: { 200: Envelope(Decision, Type.Object({})), 201: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'statement_not_found', when: 'no vendor statement of this id about the CVE' },
        ],
      },
      config: write(),
    },
    async (req, reply) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.adopt(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.body);
      reply.code(r.created ? 201 : 200);
      return ok(req, r.decision, {});
    },
  );

  app.post(
    '/api/v1/environments/:environment_id/vex/import',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Import an OpenVEX, CycloneDX or CSAF 2.0 VEX document into the environment's decisions; a newer decision is never overwritten (owner or admin; keys need the write scope)",
        description:
          "The body is the document itself (one of our exports from another environment, or another's). Products resolve to the environment's assets by our asset IRI, CPE, or vendor, product and version (CSAF: the product tree's branches); our CycloneDX environment reference and a statement without products are environment-wide. A decision changed after the statement's timestamp is kept. Statements that cannot be imported are listed in skipped, with why. All in one transaction (history action import). dry_run=true writes nothing. docs/vex.md.",
        security: SECURITY,
        params: EnvParams,
        querystring: Type.Object(
          {
            dry_run: Type.Optional(
              StringEnum(['true', 'false'] as const, {
                description: 'true: answer what would be imported, write nothing',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        body: Type.Unsafe<Record<string, unknown>>({
          type: 'object',
          description:
            'An OpenVEX 0.2.0 document, a CycloneDX (1.4 to 1.6) JSON BOM with vulnerabilities, or a CSAF 2.0 document of the VEX profile (category csaf_vex)',
          examples: [
            {
              '@context': 'https://openvex.dev/ns/v0.2.0',
              '@id': 'https://vulnintel.example/environments/1/vex/openvex/1',
              author: 'Test plant',
              timestamp: '2026-11-02T08:00:00Z',
              version: 1,
              statements: [
                {
                  vulnerability: { name: 'CVE-2024-0001' },
                  timestamp: '2026-11-02T08:00:00Z',
                  status: 'not_affected',
                  justification: 'vulnerable_code_not_in_execute_path',
                  products: [{ '@id': 'https://vulnintel.example/environments/1/assets/plc-1' }],
                },
              ],
            },
          ],
        }),
        response: { 200: Envelope(ImportResult, Type.Object({})) },
      },
      config: { auth: { ...write().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      return ok(
        req,
        await app.services.vex.import(writerOf(req.caller), env, req.body, req.query.dry_run === 'true'),
        {},
      );
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/vex',
    {
      schema: {
        tags: ['triage'],
        summary:
          "The environment's decisions as a VEX document: OpenVEX 0.2.0, CSAF 2.0 (VEX profile) or CycloneDX 1.6, streamed (any member)",
        description:
          "Products are the environment's assets (their IRI, and CPE 2.3 where the asset gives one); a decision narrowed to assets names those. An environment without decisions: 404 no_decisions (a VEX document needs one statement); CSAF of an environment without assets: 404 no_products. docs/vex.md.",
        security: SECURITY,
        params: EnvParams,
        querystring: Type.Object(
          {
            format: Type.Optional(
              StringEnum(VEX_FORMATS, {
                description:
                  'openvex (default): OpenVEX 0.2.0; csaf: CSAF 2.0, category csaf_vex; cyclonedx: CycloneDX 1.6 JSON',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Unsafe<object>({
            type: 'object',
            description: 'The VEX document itself (OpenVEX, CSAF or CycloneDX JSON), not the envelope',
          }),
        },
        errors: [
          { key: 'NOT_FOUND', error: 'no_decisions', when: 'the environment holds no decision' },
          { key: 'NOT_FOUND', error: 'no_products', when: 'format=csaf and the environment stores no asset' },
        ],
      },
      config: { auth: { ...read().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req, reply) => {
      const env = envOf(req.params.environment_id);
      const p = req.caller;
      const format = req.query.format ?? 'openvex';
      const r = await app.services.vex.export(
        format,
        { orgId: p.orgId, orgName: p.orgName },
        env,
        app.deps.clock.now(),
      );
      if (r === 'environment') throw environmentNotFound(env);
      if (r === 'empty')
        throw new ApiError('NOT_FOUND', {
          message: 'This environment holds no decision to export',
          detail: { error: 'no_decisions', environment_id: env },
        });
      if (r === 'no_products')
        throw new ApiError('NOT_FOUND', {
          message: 'CSAF names products: this environment stores no asset to name',
          detail: { error: 'no_products', environment_id: env },
        });
      const type =
        format === 'cyclonedx'
          ? 'application/vnd.cyclonedx+json; version=1.6; charset=utf-8'
          : 'application/json; charset=utf-8';
      reply
        .code(200)
        .type(type)
        .header('content-disposition', `attachment; filename="environment-${env}.${VEX_FILE[format]}"`);
      return reply.send(Readable.from(r));
    },
  );
};
export default triage;
