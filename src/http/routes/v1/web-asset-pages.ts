// An environment's assets in the web app (docs/web.md): the add-asset, edit-asset and remove-asset forms, and the CSV
// upload of nameplates or Windows hosts. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { renderEnvironment, type UploadOutcome } from '../../web/environment.tsx';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import { caught, Refusal } from '../../../services/refusal.ts';
import multipart from '@fastify/multipart';
import { readCsv } from '../v2/csv-upload.ts';
import { csvRowToHostRecord } from '../../../domain/windows/validate.ts';
import { ASSET_FIELDS } from '../../../domain/assets.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { Html, See, session, EnvParams, Csrf, EmptyForm, write, envId, idOf, pageKit } from './web-common.ts';
import { HOST_VIEW, environmentPager } from './web-environment-view.ts';
import { errorMessage } from '../../../lib/errors.ts';

/** An uploaded CSV: 2 MiB (200 rows of the widest Windows host record fit many times over). */
const UPLOAD_LIMIT = 2 * 1024 * 1024;
/** The rows a refused file or request carries in its data (data.rejected): each row's index, asset_id and reasons. */
const RejectedRows = Type.Object({
  rejected: Type.Array(
    Type.Object({
      index: Type.Integer(),
      asset_id: Type.Union([Type.String(), Type.Null()]),
      errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
    }),
  ),
});
const rejectedRows = (data: unknown) => (Value.Check(RejectedRows, data) ? data.rejected : undefined);
/** The upload form's fields (multipart, each a string or the file's bytes); read one by one below. */
const UploadFields = Type.Object({ kind: Type.Optional(Type.Unknown()), file: Type.Optional(Type.Unknown()) });

const webAssetPages: FastifyPluginAsyncTypebox = async (app) => {
  const kit = pageKit(app);
  const { s, viewer, send, environment } = kit;
  const environmentPage = environmentPager(kit);
  acceptFormBodies(app, 64 * 1024);

  /**
   * Stores one nameplate in the environment through the service of POST /api/v1/assets/correlate-cves (its CVEs
   * decided by the API's rules); the refused fields and their messages, or null when stored.
   */
  async function store(
    req: FastifyRequest,
    environmentId: number,
    asset: { asset_id: string; vendor: string; product: string; version: string },
  ): Promise<Record<string, string> | null> {
    const errors: Record<string, string> = {};
    let refused = false;
    try {
      const r = await s.assets.correlate({
        principal: req.caller,
        requestId: req.id,
        assets: [asset],
        environmentId,
        options: DEFAULT_OPTIONS,
      });
      for (const x of r.rejected) {
        refused = true;
        for (const f of x.errors) errors[f.field.replace(/^.*\./, '')] = f.message;
      }
    } catch (e) {
      // The service refuses the whole request for an asset it cannot read (the same 422 as the API): its fields.
      const r = caught(e, ['invalid_input']);
      refused = true;
      // Every asset refused: the per-asset reasons ride in data.rejected, as in the API's answer.
      const rejected = rejectedRows(r.detail.data) ?? [];
      for (const x of rejected) for (const f of x.errors) errors[f.field.replace(/^.*\./, '')] = f.message;
      if (!Object.keys(errors).length) errors.asset = r.message;
    }
    if (!refused) return null;
    if (!Object.keys(errors).length) errors.asset = 'This asset was refused.';
    return errors;
  }

  app.post(
    '/environments/:environment_id/assets',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Add-asset form: the asset is correlated and stored in the environment (POST /api/v1/assets/correlate-cves with environment_id); bad input: the form again with the field's message (422), nothing stored",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            asset_id: Type.String({ maxLength: 1000 }),
            vendor: Type.String({ maxLength: 1000 }),
            product: Type.String({ maxLength: 1000 }),
            version: Type.Optional(Type.String({ maxLength: 1000 })),
          },
          {
            additionalProperties: false,
            examples: [{ asset_id: 'page-plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: '2.9' }],
          },
        ),
        response: { ...See('the environment'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('environments', envId) },
    },
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const { asset_id, vendor, product, version = '' } = req.body;
      const errors = await store(req, env.id, { asset_id: asset_id.trim(), vendor, product, version });
      if (errors) {
        const p = await environmentPage(req, req.params.environment_id);
        return send(
          reply,
          renderEnvironment(
            viewer(req),
            p.env,
            p.assets,
            p.total,
            { asset_id, vendor, product, version, errors },
            p.hosts,
          ),
          422,
        );
      }
      return reply.redirect(`/environments/${env.id}`, 303);
    },
  );

  app.post(
    '/assets/:asset_id/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Remove-asset form (DELETE /api/v1/assets/{asset_id} with environment_id): back to the environment',
        security: session,
        params: Type.Object({ asset_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object(
          { environment_id: Type.Optional(EnvParams.properties.environment_id) },
          { additionalProperties: false },
        ),
        body: EmptyForm,
        response: See('the environment'),
      },
      config: {
        auth: write('windows_results', [
          { in: 'query', name: 'environment_id', foreign: 'environment_not_found' },
          { in: 'params', name: 'asset_id', foreign: 'asset_not_found' },
        ]),
      },
    },
    async (req, reply) => {
      // Without environment_id: the Windows hosts stored without one (as DELETE /api/v1/assets/{asset_id}).
      const id = req.query.environment_id === undefined ? null : idOf(req.query.environment_id);
      const r = await s.environments.removeAsset(req.caller.orgId, id, req.params.asset_id);
      if (r === 'environment')
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.query.environment_id } });
      if (r === 'asset')
        throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id: req.params.asset_id, environment_id: id } });
      return reply.redirect(id === null ? '/environments' : `/environments/${id}`, 303);
    },
  );

  app.post(
    '/assets/:asset_id/edit',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Edit-asset form: a stored nameplate's vendor, product and version, stored again under its asset_id as the add-asset form stores one (POST /api/v1/assets/correlate-cves with environment_id: its CVEs decided again; a cpe it had is not kept); bad input: the page again with the field's message (422), nothing stored",
        security: session,
        params: Type.Object({ asset_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object(
          { environment_id: Type.Optional(EnvParams.properties.environment_id) },
          { additionalProperties: false },
        ),
        body: Type.Object(
          {
            ...Csrf,
            vendor: Type.String({ maxLength: 1000 }),
            product: Type.String({ maxLength: 1000 }),
            version: Type.Optional(Type.String({ maxLength: 1000 })),
          },
          {
            additionalProperties: false,
            examples: [{ vendor: 'Siemens', product: 'SIMATIC S7-1500', version: '3.0' }],
          },
        ),
        response: { ...See('the environment'), 422: Html('The environment page, the edit form with the reason') },
      },
      config: {
        auth: write('asset_correlations', [
          { in: 'query', name: 'environment_id', foreign: 'environment_not_found' },
          { in: 'params', name: 'asset_id', foreign: 'asset_not_found' },
        ]),
      },
    },
    async (req, reply) => {
      const asset_id = req.params.asset_id;
      // A nameplate of the page lives in an environment: without environment_id there is none to edit.
      const raw = req.query.environment_id;
      if (raw === undefined) throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id, environment_id: null } });
      const current = await environmentPage(req, raw, { assetId: asset_id });
      if (!current.assets.length)
        throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id, environment_id: current.env.id } });
      const { vendor, product, version = '' } = req.body;
      const errors = await store(req, current.env.id, { asset_id, vendor, product, version });
      if (errors) {
        // The asset alone (it may sit on any page of the environment), its edit form with the reasons.
        const p = current;
        const edit = { asset_id, vendor, product, version, errors };
        return send(
          reply,
          renderEnvironment(viewer(req), p.env, p.assets, p.total, { edit }, p.hosts, undefined, p.view),
          422,
        );
      }
      return reply.redirect(`/environments/${current.env.id}`, 303);
    },
  );

  // CSV upload of nameplates (asset_id,vendor,product,version[,cpe]) or of Windows hosts (the §2.6 columns, as POST
  // /api/v2/assets/correlate-csv): the same validation and services as the API, with one difference a person at a
  // page needs: a file with any refused row is refused whole (the rows and their reasons on the page), nothing stored.
  await app.register(async (up) => {
    await up.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { files: 1, fileSize: UPLOAD_LIMIT, fields: 4, parts: 5 },
    });
    // The scope of the multipart parser: the route typed by its schemas as every other.
    up.withTypeProvider<TypeBoxTypeProvider>().post(
      '/environments/:environment_id/upload',
      {
        schema: {
          tags: ['pages'],
          summary:
            "Upload form (multipart: kind = nameplates or windows, file = the CSV): every row stored, or the page with each refused row's reasons (422) and nothing stored",
          security: session,
          params: EnvParams,
          querystring: NoQuery,
          consumes: ['multipart/form-data'],
          response: { ...See('the environment'), 422: Html('The environment page with the refused rows') },
        },
        config: { auth: write('environments', envId) },
      },
      async (req, reply) => {
        const envRaw = req.params.environment_id;
        const env = await environment(req, envRaw);
        const body: Static<typeof UploadFields> = Value.Check(UploadFields, req.body) ? req.body : {};
        const kind = body.kind === 'windows' ? 'windows' : body.kind === 'nameplates' ? 'nameplates' : null;
        const refuse = async (u: UploadOutcome) => {
          const p = await environmentPage(req, envRaw);
          return send(reply, renderEnvironment(viewer(req), p.env, p.assets, p.total, {}, p.hosts, u), 422);
        };
        if (kind === null)
          return refuse({ kind: 'nameplates', message: 'Choose what the file holds: nameplates or Windows hosts.' });
        const file = body.file;
        const text = Buffer.isBuffer(file) ? file : typeof file === 'string' ? Buffer.from(file) : null;
        if (!text || text.length === 0) return refuse({ kind, message: 'Choose a CSV file to upload.' });
        let csv: string;
        try {
          csv = new TextDecoder('utf-8', { fatal: true }).decode(text);
        } catch {
          return refuse({ kind, message: 'The file is not valid UTF-8 text: save it as CSV UTF-8.' });
        }
        try {
          const rows = readCsv(csv, kind === 'windows' ? 'hosts' : 'nameplates');
          const max = kind === 'windows' ? MAX_HOSTS : MAX_ASSETS;
          if (rows.length === 0) return await refuse({ kind, message: 'The file has a header row and no data row.' });
          if (rows.length > max)
            return await refuse({
              kind,
              message: `A file holds at most ${max} rows (this one has ${rows.length}); split it.`,
            });
          if (kind === 'nameplates') {
            const extra = Object.keys(rows[0]).filter((h) => !ASSET_FIELDS.some((f) => f === h));
            if (extra.length)
              return await refuse({
                kind,
                message: `Columns not part of a nameplate: ${extra.join(', ')} (the columns are ${ASSET_FIELDS.join(', ')}).`,
              });
            await s.assets.correlate({
              principal: req.caller,
              requestId: req.id,
              environmentId: env.id,
              options: DEFAULT_OPTIONS,
              wholeFile: true,
              assets: rows.map((r) =>
                Object.fromEntries(
                  Object.entries(r).filter(([k, v]) => !(k === 'version' || k === 'cpe') || v.trim() !== ''),
                ),
              ),
            });
          } else {
            await app.limits.correlation.check(req.caller, rows.length);
            await s.windows.correlate({
              orgId: req.caller.orgId,
              requestId: req.id,
              environmentId: env.id,
              hosts: rows.map(csvRowToHostRecord),
              software: [],
              options: HOST_VIEW,
              wholeFile: true,
            });
          }
        } catch (e) {
          // The services' refusal of the file (invalid_input, the rows in data.rejected), or a 422 of the limits.
          const refusal = e instanceof Refusal ? caught(e, ['invalid_input']) : null;
          if (!refusal && !(e instanceof ApiError && e.entry.status === 422)) throw e;
          const rejected = rejectedRows(
            refusal ? refusal.detail.data : e instanceof ApiError ? e.opts.data : undefined,
          );
          return refuse({
            kind,
            message: rejected?.length
              ? `${rejected.length} row${rejected.length > 1 ? 's' : ''} refused: nothing was stored. Correct the file and upload it again.`
              : (refusal?.message ?? errorMessage(e)),
            // Row numbers as a spreadsheet shows them: the header is row 1.
            rows: rejected?.map((x) => ({
              row: x.index + 2,
              asset_id: x.asset_id,
              errors: x.errors.map((f) => `${f.field.replace(/^.*\./, '')}: ${f.message}`),
            })),
          });
        }
        return reply.redirect(`/environments/${env.id}?uploaded=${kind}`, 303);
      },
    );
  });
};
export default webAssetPages;
