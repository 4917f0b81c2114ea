// An environment's decisions as VEX (docs/vex.md): POST /api/v1/environments/{environment_id}/vex/import reads an
// OpenVEX, CycloneDX or CSAF document into them; GET .../vex exports them as one.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { StringEnum } from '../../schemas/common.ts';
import { environmentNotFound } from '../../../services/refusal.ts';
import { VEX_FORMATS, type VexFormat } from '../../../services/vex.ts';
import { EnvParams } from './triage-schemas.ts';
import { ENV_ID, SECURITY, envOf, read, write, writerOf } from './triage-policy.ts';

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

const VEX_FILE: Record<VexFormat, string> = { openvex: 'openvex.json', csaf: 'csaf.json', cyclonedx: 'cdx.json' };

const vex: FastifyPluginAsyncTypebox = async (app) => {
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

export default vex;
