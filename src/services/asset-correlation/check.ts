// POST /api/v1/assets/correlate-cves/check: the same input as correlate-cves; per asset only whether anything
// matched, the counts by status and severity, and KEV presence. Nothing is stored.
import { verdictStatus } from '../../domain/correlate.ts';
import type { CveFlags } from '../../store/ranges.ts';
import { severityCounts, type AssetCheck, type StatusCounts } from '../correlation-answer.ts';
import type { CorrelationCache } from '../correlation-cache.ts';
import type { AssetCharge } from './charge.ts';
import type { AssetMatcher, RejectedAsset } from './match.ts';
import type { CorrelateInput } from './types.ts';

export async function check(
  parts: {
    cache: CorrelationCache;
    charge: AssetCharge;
    matcher: AssetMatcher;
    prepare: (input: CorrelateInput) => ReturnType<AssetMatcher['validate']>;
  },
  input: CorrelateInput,
): Promise<{ assets: AssetCheck[]; rejected: RejectedAsset[] }> {
  // The environment is checked (404 when it is not the organization's); nothing is stored.
  const { accepted, rejected } = await parts.prepare(input);
  return parts.charge.run(input.principal, accepted.length, async () => {
    // Only what the counts need: each CVE's status (verdictStatus: no sentences, no deciding range), severity
    // and KEV flag (no card fields read from the CVE documents).
    const { matchedPer, ids } = await parts.matcher.matchAll(accepted);
    const flags = await parts.cache.flags(ids);
    return {
      rejected,
      assets: accepted.map((asset, i) => {
        const counts: StatusCounts = { affected: 0, not_affected: 0, needs_review: 0 };
        const open: CveFlags[] = [];
        let matched = false;
        for (const [cve_id, rows] of matchedPer[i]) {
          const f = flags.get(cve_id);
          if (!f) continue; // ranges of a CVE not in the corpus
          matched = true;
          const status = verdictStatus(asset, rows);
          counts[status]++;
          if (status !== 'not_affected') open.push(f);
        }
        return {
          asset_id: asset.asset_id,
          matched,
          counts,
          severity: severityCounts(open),
          known_exploited: open.some((f) => f.kev_flagged),
        };
      }),
    };
  });
}
