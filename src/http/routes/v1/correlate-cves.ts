// POST /api/v1/assets/correlate-cves (spec §4.7, §5.8, §7, §8; docs/correlation.md §5–7): nameplate assets → CVEs per
// asset (partner and trial keys too). It computes rather than writes (auth `query`: the read scope suffices, so
// read-only partner keys may call it); with environment_id it stores the results and then needs the write scope
// (checked here). Its order of refusals: correlate-input.ts.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { CorrelateBody, CorrelateResponse } from './asset-schemas.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import {
  CORRELATE_CONFIG,
  ENV_IN_BODY,
  FOR_TRIAL_KEYS,
  correlationLimits,
  laterFields,
  type CorrelateInput,
  type Later,
} from './correlate-input.ts';
import { sendAnswers } from './correlate-answers.ts';

/** environment_id of correlate-cves, where it stores the results: the key needs the write scope too. */
function environmentOf(req: FastifyRequest, later: Later): number | null {
  const id = later.environmentId();
  if (id === null) return null;
  // Storing results is a write: the key needs the write scope (a read-only partner key may correlate without it).
  if (!req.caller.scopes.includes('write')) {
    throw new ApiError('INSUFFICIENT_SCOPE', {
      message: 'Storing results in an environment needs the write scope; omit environment_id to correlate only',
      detail: { required_scope: 'write' },
    });
  }
  return id;
}

const correlateCves: FastifyPluginAsync = async (app) => {
  const svc = app.services.assets;
  const limits = correlationLimits(app);

  app.post<{ Body: CorrelateInput }>(
    '/api/v1/assets/correlate-cves',
    {
      schema: {
        tags: ['assets'],
        summary:
          'Which CVEs hit these assets: up to 200 nameplate assets (vendor, product, version, optional CPE) → per asset the matched products and CVEs (affected, needs_review, optionally not_affected) with the deciding range. With environment_id the assets are stored there (403 cap_exceeded past the asset cap, nothing stored)',
        description: capRefusalDescription('assets'),
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({}),
        body: CorrelateBody,
        response: { 200: CorrelateResponse },
        errors: [
          ...FOR_TRIAL_KEYS,
          capExceeded('assets'),
          {
            key: 'INSUFFICIENT_SCOPE',
            when: 'environment_id sent with a key without the write scope (storing is a write)',
          },
        ],
      },
      // NUL or a lone surrogate in an asset refuses that asset only (validateAsset); elsewhere in the body, the request.
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'read',
          query: true,
          partner: true,
          trial: true,
          tenant: ENV_IN_BODY,
        },
        ...CORRELATE_CONFIG,
      },
    },
    async (req, reply) => {
      const body = req.body;
      await limits(req, body.assets.length, true);
      const later = laterFields(req, body);
      const environmentId = environmentOf(req, later);
      const options = later.options();
      const r = await svc.correlate({
        principal: req.caller,
        requestId: req.id,
        assets: body.assets,
        environmentId,
        options,
      });
      return sendAnswers(req, reply, r, options, { environment_id: environmentId, stored: r.stored });
    },
  );
};

export default correlateCves;
