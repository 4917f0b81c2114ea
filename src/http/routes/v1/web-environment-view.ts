// An environment's page as the environment, asset and export routes read it: a page of its nameplates with their
// CVEs and its Windows hosts, each in the view the API answers by default.
import type { FastifyRequest } from 'fastify';
import type { EnvironmentView } from '../../web/environment.tsx';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';
import type { pageKit } from './web-common.ts';

/** Nameplates per page of an environment: each comes with its CVE table (docs/web.md "Performance"). */
export const ENV_PAGE_ASSETS = 50;
/** The v2 view of a stored host on its environment's page: the defaults of GET /api/v2/assets/results. */
export const HOST_VIEW: ViewOptions = (() => {
  const o = parseViewOptions({}, { fromText: true, includeClearedDefault: false });
  if (!o.ok) throw new Error('the default view options are refused');
  return o.options;
})();

/** The environment page reader of a page plugin's kit. */
export function environmentPager({ s, environment }: ReturnType<typeof pageKit>) {
  /** A page of the environment's nameplates (ENV_PAGE_ASSETS, by asset_id) and its Windows hosts; `assetId`: that asset alone. */
  return async function environmentPage(
    req: FastifyRequest,
    raw: string,
    at: { page?: number; assetId?: string } = {},
  ) {
    const env = await environment(req, raw);
    const page = at.page ?? 1;
    const assetId = at.assetId ?? null;
    const [r, hosts] = await Promise.all([
      s.assets.results({
        principal: req.caller,
        environmentId: env.id,
        assetId,
        page,
        perPage: ENV_PAGE_ASSETS,
        options: DEFAULT_OPTIONS,
      }),
      s.windows.results({
        orgId: req.caller.orgId,
        environmentId: env.id,
        assetId: assetId ?? undefined,
        page: 1,
        perPage: MAX_HOSTS,
        options: HOST_VIEW,
      }),
    ]);
    const view: EnvironmentView = { page, pages: Math.max(1, Math.ceil(r.total / ENV_PAGE_ASSETS)), assetId };
    return {
      env,
      total: r.total,
      assets: Array.from({ length: r.count }, (_, i) => r.answer(i)),
      hosts: { items: hosts.assets, total: hosts.total },
      view,
    };
  };
}
