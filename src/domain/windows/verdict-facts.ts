// The shapes every verdict path shares (domain/windows/verdict.ts): the verdict, the host's context, the markers of
// the commonest reasons, and the small lookups of the paths. Pure.
import type { OsBuild } from './build.ts';
import type { KbInfo, ProductIndex } from './evaluation-index.ts';
import type { ProductMatch } from './match.ts';
import type { WindowsHost } from './host-record.ts';

export type CveStatus = 'confirmed open' | 'cleared (patched)' | 'needs review';
export type FixType = 'kb' | 'esu' | 'none';

export interface Verdict {
  status: CveStatus;
  fixedBuild: string | null;
  kb: string | null;
  note: string | null;
  fixClass: 'lcu' | 'rollup' | 'ssu' | 'standalone' | 'other' | null;
  fixMonth: string | null;
  fixUrl: string | null;
  derived: boolean;
  why: string;
  fixType: FixType;
  /** The listed KB a legacy decision rests on (for the rendered reason). */
  ref?: string;
}

export interface HostCtx {
  host: WindowsHost;
  build: OsBuild | null;
  kbs: Set<string> | null;
  /** Last month (YYYY-MM) whose fixes the host can install without ESU; null = no limit. */
  installableUntil: string | null;
  /** What a fix after installableUntil needs: an ESU enrolment, or nothing helps (no programme / ended). */
  afterLimit: 'esu' | 'none';
  level: ProductMatch['level'];
  /** The host's KB list seen through the product's series, computed once per host (null: no list). */
  sum: KbSummary | null;
}

/** What the host's KB list says about the product's series: computed once per host, used for every CVE. */
export interface KbSummary {
  /** Highest UBR among the listed KBs of the LCU series that have a build. */
  maxUbr: number | null;
  /** Latest month among the listed series KBs without a build (pre-2021 LCUs). */
  maxMonthNoBuild: string | null;
  /** Newest listed LCU (by month), for messages; null when none is listed. */
  newestLcu: KbInfo | null;
  /** Newest listed Monthly Rollup of the product. */
  newestMr: KbInfo | null;
  /** KB → the listed KB whose Supercedence chain replaces it. */
  superseded: Map<string, string>;
  /** The reason text of "cleared by a later rollup", built once per host. */
  laterMrWhy?: string;
}

export const month = (pi: ProductIndex, kb: string | null): string | null =>
  kb ? (pi.kbs.get(kb)?.month ?? null) : null;

/** Markers for the two commonest reasons; the text is written when the CVE is rendered. */
export const WHY_BUILD = '\u0000build';
export const WHY_BELOW = '\u0000below';
export const WHY_SERIES_CLEAR = '\u0000series-clear';
export const WHY_SERIES_OPEN = '\u0000series-open';

export function noFix(): Verdict {
  return {
    status: 'confirmed open',
    fixedBuild: null,
    kb: null,
    note: null,
    fixClass: null,
    fixMonth: null,
    fixUrl: null,
    derived: false,
    why: 'Microsoft lists this product as affected and publishes no update for it',
    fixType: 'none',
  };
}
