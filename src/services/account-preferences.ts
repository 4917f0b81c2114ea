// Per-member notification preferences (spec §4.5; the alerts work reads them through `notificationPrefs`) and
// usage against the effective plan caps (plan from configuration, or the organization's override).
// docs/account-preferences.md has the shapes and defaults.
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import type { Member } from '../store/training.ts';
import { getNotificationPrefs, putNotificationPrefs, usageCounts } from '../store/account-preferences.ts';
import { getOrg, setCapOverrides } from '../store/accounts.ts';
import {
  CAP_RESOURCES,
  effectiveCaps,
  usageLine,
  type CapOverrides,
  type CapResource,
  type PlanCapsTable,
  type UsageLine,
} from '../domain/plan-caps.ts';
import type { Tier } from '../domain/tiers.ts';

export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export const DELIVERIES = ['instant', 'daily_digest'] as const;

export interface NotificationPrefs {
  email_enabled: boolean;
  min_severity: (typeof SEVERITIES)[number] | null;
  min_bcs: number | null;
  kev_only: boolean;
  delivery: (typeof DELIVERIES)[number];
}

/** A member who never saved preferences: email on, HIGH and above, every CVE (not only KEV), one daily digest. */
export const DEFAULT_NOTIFICATION_PREFS: Readonly<NotificationPrefs> = Object.freeze({
  email_enabled: true,
  min_severity: 'HIGH',
  min_bcs: null,
  kev_only: false,
  delivery: 'daily_digest',
});

export interface NotificationPrefsView extends NotificationPrefs {
  /** false until the member saves preferences (the defaults apply). */
  customized: boolean;
  updated_at: string | null;
}

export interface UsageReport {
  tier: Tier;
  environments: UsageLine;
  assets: UsageLine;
  members: UsageLine;
  webhooks: UsageLine;
}

export function createAccountPreferences(db: Db, clock: Clock, planCaps: Readonly<PlanCapsTable>) {
  return {
    async notificationPrefs(m: Member): Promise<NotificationPrefsView> {
      const r = await getNotificationPrefs(db, m);
      if (!r) return { ...DEFAULT_NOTIFICATION_PREFS, customized: false, updated_at: null };
      return {
        email_enabled: r.email_enabled,
        min_severity: r.min_severity,
        min_bcs: r.min_bcs,
        kev_only: r.kev_only,
        delivery: r.delivery,
        customized: true,
        updated_at: r.updated_at.toISOString(),
      };
    },

    /** Replaces the member's preferences whole (validated by the route schema). */
    async putNotificationPrefs(m: Member, p: NotificationPrefs): Promise<NotificationPrefsView> {
      const r = await putNotificationPrefs(
        db,
        m,
        { ...p, min_bcs: p.min_bcs === null ? null : Math.round(p.min_bcs * 10) / 10 },
        clock.now(),
      );
      return { ...p, min_bcs: r.min_bcs, customized: true, updated_at: r.updated_at.toISOString() };
    },

    /** Null when the organization does not exist. */
    async usage(orgId: number): Promise<UsageReport | null> {
      const org = await getOrg(db, orgId);
      if (!org) return null;
      const tier = org.tier;
      const overrides = org.cap_overrides;
      const counts = await usageCounts(db, orgId, clock.now());
      const eff = effectiveCaps(planCaps, tier, overrides);
      const line = (r: CapResource) => usageLine(counts[r], planCaps[tier][r], eff[r], overrides[r] !== undefined);
      return {
        tier,
        environments: line('environments'),
        assets: line('assets'),
        members: line('members'),
        webhooks: line('webhooks'),
      };
    },

    /** Operator override (CLI). Null clears a resource's override. False when the organization does not exist. */
    async setCapOverrides(
      orgId: number,
      set: Partial<Record<CapResource, number | null>>,
    ): Promise<CapOverrides | false> {
      return (await setCapOverrides(db, orgId, set)) ?? false;
    },

    resources: CAP_RESOURCES,
  };
}

export type AccountPreferences = ReturnType<typeof createAccountPreferences>;
