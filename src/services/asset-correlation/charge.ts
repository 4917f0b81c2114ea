// The asset checks a correlation call spends (spec §7/§8; docs/correlation.md §7): trial keys spend the
// organization's 750 checks, partner keys their monthly limit. Refused → nothing counted, nothing processed; a call
// that fails after charging gives its checks back.
import type { Db } from '../../store/db.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Principal } from '../identity.ts';
import { monthWindow } from '../../domain/keys.ts';
import { TRIAL, TRIAL_CONTACT_URL } from '../../domain/tiers.ts';
import {
  chargePartnerChecks,
  chargeTrialChecks,
  partnerMonthlyLimit,
  refundPartnerChecks,
  refundTrialChecks,
} from '../../store/asset-checks.ts';
import { Refusal } from '../refusal.ts';

/** Partner keys without their own limit (api_keys.monthly_asset_limit): asset checks per calendar month (UTC). */
export const DEFAULT_PARTNER_MONTHLY_ASSETS = 10_000;

export interface AssetChargeDeps {
  db: Db;
  clock: Clock;
  /** The public URL: TRIAL_REQUIRED's trial_url is the trial-start endpoint on it. */
  publicUrl: string;
}

export function createAssetCharge({ db, clock, publicUrl }: AssetChargeDeps) {
  /** One conditional statement per charge (store/asset-checks.ts), so 20 parallel calls never pass the limit. */
  async function charge(p: Principal, n: number): Promise<void> {
    if (n <= 0) return;
    if (p.kind === 'trial') {
      const r = await chargeTrialChecks(db, p.orgId, n, TRIAL.totalChecks);
      if (r.charged) return;
      const used = r.used ?? TRIAL.totalChecks;
      throw new Refusal(
        'trial_checks_used',
        used >= TRIAL.totalChecks
          ? `The trial's ${TRIAL.totalChecks} asset checks are used up; nothing was processed`
          : `This request needs ${n} asset checks and ${TRIAL.totalChecks - used} remain; nothing was processed`,
        {
          reason: 'limit',
          used,
          limit: TRIAL.totalChecks,
          remaining: Math.max(0, TRIAL.totalChecks - used),
          requested: n,
          contact_url: TRIAL_CONTACT_URL,
        },
      );
    }
    if (p.kind === 'partner' && p.keyId !== null) {
      const { month, resetsAt } = monthWindow(clock.now());
      const limit = (await partnerMonthlyLimit(db, p.keyId)) ?? DEFAULT_PARTNER_MONTHLY_ASSETS;
      const r = await chargePartnerChecks(db, p.keyId, month, n, limit);
      if (r.charged) return;
      const used = r.used;
      throw new Refusal('partner_limit', null, {
        used,
        limit,
        remaining: Math.max(0, limit - used),
        requested: n,
        resets_at: resetsAt.toISOString(),
      });
    }
  }

  /** Gives charged checks back when the call fails after charging (a 500 must not spend a trial). */
  async function refund(p: Principal, n: number): Promise<void> {
    if (p.kind === 'trial') await refundTrialChecks(db, p.orgId, n);
    if (p.kind === 'partner' && p.keyId !== null)
      await refundPartnerChecks(db, p.keyId, monthWindow(clock.now()).month, n);
  }

  return {
    charge,
    refund,

    /** Spec §4.7: a Free account calls correlate-cves and its check only with a trial key. */
    assertAllowed: (p: Principal): void => {
      if (p.tier === 'free' && p.kind !== 'trial' && p.kind !== 'partner') {
        throw new Refusal('trial_required', null, {
          trial_url: `${publicUrl}/api/v1/account/trial`,
          contact_url: TRIAL_CONTACT_URL,
        });
      }
    },

    /** `fn` after `n` checks were charged; its failure gives them back. */
    run: async <T>(p: Principal, n: number, fn: () => Promise<T>): Promise<T> => {
      try {
        return await fn();
      } catch (e) {
        await refund(p, n).catch(() => undefined);
        throw e;
      }
    },

    /**
     * Work that spends asset checks (check-windows): `fn` validates, calls `spend(accepted)` once its input is
     * validated (an all-refused call is its 422, nothing spent), and does the work; a failure after spending gives the
     * checks back. Refused records are never charged (docs/correlation.md §7).
     */
    charged: async <T>(p: Principal, fn: (spend: (accepted: number) => Promise<void>) => Promise<T>): Promise<T> => {
      let spent = 0;
      try {
        return await fn(async (n) => {
          await charge(p, n);
          spent = n;
        });
      } catch (e) {
        if (spent > 0) await refund(p, spent).catch(() => undefined);
        throw e;
      }
    },
  };
}

export type AssetCharge = ReturnType<typeof createAssetCharge>;
