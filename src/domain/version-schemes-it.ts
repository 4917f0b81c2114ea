// The version schemes of IT vendors (docs/correlation.md §1 "Version schemes"; the list and the scheme of each vendor
// in version-schemes.ts): Fortinet and Palo Alto hotfixes, ISC BIND editions, Juniper Junos, Cisco's trains and
// builds, RPM package EVRs. Pure.
import { normaliseVersion, type Comparison, type Order } from './versions.ts';
import {
  byGrammar,
  compareCoreSuffix,
  compareTuple,
  core,
  coreAndSuffix,
  sign,
  type Compare,
} from './version-grammar.ts';

// ---- Fortinet / Palo Alto hotfixes ------------------------------------------------------------------------------

/** A hotfix spelling as its core and hotfix number ("10.2.7-h3": 10.2.7, 3); null for anything else. */
export const parseHotfix = coreAndSuffix(/^(\d{1,6}(?:\.\d{1,6}){0,5})(?:-h(\d{1,4}))?$/);
export const compareHotfix: Compare = byGrammar(parseHotfix, compareCoreSuffix);

// ---- BIND editions ----------------------------------------------------------------------------------------------

const BIND = /^(\d{1,6}(?:\.\d{1,6}){0,5})(?:-s(\d{1,4}))?$/;

export function parseBind(raw: string): { core: number[]; s: number | null } | null {
  const m = BIND.exec(normaliseVersion(raw));
  return m ? { core: core(m[1]), s: m[2] === undefined ? null : Number(m[2]) } : null;
}

export const compareBind: Compare = byGrammar(parseBind, (x, y) => {
  // Two editions: "9.18.24" (open source) and "9.18.24-S1" (Supported Preview) are different products' versions.
  if ((x.s === null) !== (y.s === null)) return 'needs_review';
  return compareTuple(x.core, y.core) || sign((x.s ?? 0) - (y.s ?? 0));
});

// ---- Juniper ----------------------------------------------------------------------------------------------------

const JUNIPER = /^(\d{1,4}(?:\.\d{1,4}){0,3})(?:r(\d{1,4})(?:-s(\d{1,4})(?:\.(\d{1,4}))?)?)?(-evo)?$/;

/** A Junos spelling as its tuple and whether it is Junos OS Evolved ("22.4R3-S3-EVO"); null for anything else. */
export function parseJuniper(raw: string): { tuple: number[]; evo: boolean } | null {
  const m = JUNIPER.exec(normaliseVersion(raw));
  if (!m) return null;
  // The release's numbers padded to four, then R, S and the S build: "22.4" < "22.4R1" < "22.4R1-S1" < "22.4R2".
  const rel = m[1].split('.').map(Number);
  while (rel.length < 4) rel.push(0);
  return { tuple: [...rel, Number(m[2] ?? 0), Number(m[3] ?? 0), Number(m[4] ?? 0)], evo: m[5] !== undefined };
}

export const compareJuniper: Compare = byGrammar(parseJuniper, (x, y) =>
  x.evo !== y.evo ? 'needs_review' : compareTuple(x.tuple, y.tuple),
);

// ---- Cisco ------------------------------------------------------------------------------------------------------

/**
 * A Cisco release beyond the IOS trains the general comparator orders: NX-OS with a train and rebuild
 * ("6.0(2)A3(1)", "7.0(3)I7(5a)"), IOS XE 3 ("3.7.4aS", "3.3.0SG": interim letter lower case, train upper case, as
 * Cisco writes them), an ISE patch ("2.6.0 p1", "2.7.0_p1"), an AsyncOS build ("11.7.0-406"), or a plain dotted
 * release (which a patch or a build may follow).
 */
export interface CiscoRelease {
  kind: 'nxos' | 'xe3' | 'patch' | 'build' | 'plain';
  core: number[];
  train: string;
  tail: number[];
}

const letter = (l: string | undefined) => (l ? l.charCodeAt(0) - 96 : 0);
const NXOS = /^(\d{1,4})\.(\d{1,4})\((\d{1,4})([a-z]?)\)([a-z]{1,4})(\d{0,4})\((\d{1,4})([a-z]?)\)$/;
const XE3 = /^(\d{1,2})\.(\d{1,2})\.(\d{1,2})([a-z]?)([A-Z]{1,3})$/;
/** An IOS or NX-OS release without a train rebuild ("9.3(5)", "15.2(4)M1"). */
export const IOS = /^\d{1,4}\.\d{1,4}\(\d{1,4}[a-z]{0,2}\)[a-z]{0,4}\d{0,4}[a-z]?$/;
const CISCO_PATCH = /^(\d{1,6}(?:\.\d{1,6}){0,4})(?:[ _]?p(\d{1,4})|-(\d{1,5}))?$/;

export function parseCiscoRelease(raw: string): CiscoRelease | null {
  const t = raw.trim();
  let m = XE3.exec(t);
  if (m)
    return {
      kind: 'xe3',
      core: [Number(m[1]), Number(m[2]), Number(m[3]), letter(m[4])],
      train: m[5].toLowerCase(),
      tail: [],
    };
  const n = normaliseVersion(t);
  if ((m = NXOS.exec(n)))
    return {
      kind: 'nxos',
      core: [Number(m[1]), Number(m[2]), Number(m[3]), letter(m[4])],
      train: m[5],
      tail: [Number(m[6]), Number(m[7]), letter(m[8])],
    };
  if ((m = CISCO_PATCH.exec(n))) {
    const kind = m[2] !== undefined ? 'patch' : m[3] !== undefined ? 'build' : 'plain';
    return { kind, core: core(m[1]), train: '', tail: [Number(m[2] ?? m[3] ?? 0)] };
  }
  return null;
}

export function compareCiscoParsed(x: CiscoRelease, y: CiscoRelease): Comparison {
  if (x.kind === 'plain' && y.kind === 'plain') return compareTuple(x.core, y.core);
  if (x.kind === y.kind || (x.kind === 'plain' && y.kind === 'patch') || (x.kind === 'patch' && y.kind === 'plain')) {
    // Two trains of one release run side by side (NX-OS A3 and I7, IOS XE S and SG): neither comes first.
    if (x.train !== y.train) return 'needs_review';
    return compareTuple(x.core, y.core) || compareTuple(x.tail, y.tail);
  }
  // A release without its build against a build ("11.7.0" and "11.7.0-406"): ordered only where the releases differ.
  if ((x.kind === 'plain' && y.kind === 'build') || (x.kind === 'build' && y.kind === 'plain'))
    return compareTuple(x.core, y.core) || 'needs_review';
  return 'needs_review';
}

/** Cisco's releases: its own grammars (parseCiscoRelease), else the general comparator's IOS trains ("15.2(4)M"). */
export const compareCisco: Compare = byGrammar(parseCiscoRelease, compareCiscoParsed);

// ---- RPM package versions ---------------------------------------------------------------------------------------

export interface Evr {
  epoch: number;
  version: string;
  release: string | null;
}

const EVR = /^(?:(\d{1,9}):)?v?(\d[0-9A-Za-z._+~^]*?)(?:-([0-9A-Za-z._+~^]+))?$/;

/** An RPM EVR ("0:6.5.2-6.el9_2", "4.2.4-6", "v1.1.0-10"): a leading "v" before the version is cosmetic; null else. */
export function parseEvr(raw: string): Evr | null {
  const m = EVR.exec(raw.trim());
  return m ? { epoch: Number(m[1] ?? 0), version: m[2], release: m[3] ?? null } : null;
}

const alnum = (c: string) => /[0-9A-Za-z]/.test(c);

/** rpm's rpmvercmp (lib/rpmvercmp.c): the order rpm and dnf install by. */
export function rpmvercmp(a: string, b: string): Order {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while (i < a.length && !alnum(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !alnum(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
    // "~" sorts before everything, the end included ("1.0~rc1" < "1.0").
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    // "^" sorts after the end and before anything else ("1.0" < "1.0^git1" < "1.0.1").
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const num = /\d/.test(a[i]);
    const seg = num ? /^\d*/ : /^[A-Za-z]*/;
    const x = seg.exec(a.slice(i))![0];
    const y = seg.exec(b.slice(j))![0];
    i += x.length;
    j += y.length;
    // A number against letters: the number is newer.
    if (y === '') return num ? 1 : -1;
    if (num) {
      const xs = x.replace(/^0+/, '');
      const ys = y.replace(/^0+/, '');
      if (xs.length !== ys.length) return sign(xs.length - ys.length);
      if (xs !== ys) return xs < ys ? -1 : 1;
    } else if (x !== y) return x < y ? -1 : 1;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

export const compareRpm: Compare = byGrammar(parseEvr, (x, y) => {
  // A spelling without a release against a package build: "9.2" may be the release of the product that carries the
  // package (Red Hat names "Red Hat Enterprise Linux 9" the product and the keylime build "0:6.5.2-6.el9_2" its
  // version), "6.5.2" the upstream version of one of several builds: neither is the build's own order.
  if ((x.release === null) !== (y.release === null)) return 'needs_review';
  if (x.epoch !== y.epoch) return sign(x.epoch - y.epoch);
  return rpmvercmp(x.version, y.version) || (x.release === null ? 0 : rpmvercmp(x.release, y.release!));
});

// ---- Ivanti -----------------------------------------------------------------------------------------------------

const IVANTI = /^(\d{1,4}(?:\.\d{1,4}){0,3})(?:r(\d{1,4})(?:\.(\d{1,4}))?|[ _]su ?(\d{1,3}))?$/;

/**
 * An Ivanti spelling as one tuple: Connect Secure and Policy Secure releases "22.5R1.3" / "9.1R17.4" (release, R, build:
 * 22.5 < 22.5R1 < 22.5R1.3 < 22.5R2 < 22.6R1), Endpoint Manager security updates "2022 SU6" / "2022_su6" (2022 <
 * 2022 SU5 < 2022 SU6 < 2024); null for anything else.
 */
export function parseIvanti(raw: string): number[] | null {
  const m = IVANTI.exec(normaliseVersion(raw));
  if (!m) return null;
  const rel = m[1].split('.').map(Number);
  while (rel.length < 4) rel.push(0);
  return [...rel, Number(m[2] ?? m[4] ?? 0), Number(m[3] ?? 0)];
}

export const compareIvanti: Compare = byGrammar(parseIvanti, compareTuple);

// ---- SAP --------------------------------------------------------------------------------------------------------

const SAP = /^([a-z][a-z0-9_/-]{0,30}) (\d{1,4}(?:\.\d{1,4}){0,2})$/;

/**
 * An SAP software component and its release, as SAP's records state the versions of a product: "SAP_BASIS 731",
 * "KERNEL 7.53", "S4CORE 106". Two releases of one component are ordered by their numbers (KERNEL 7.53 < KERNEL 7.77
 * < KERNEL 8.04); two components are never ordered against each other; null for anything else.
 */
export function parseSap(raw: string): { component: string; release: number[] } | null {
  const m = SAP.exec(raw.trim().toLowerCase().replace(/\s+/g, ' '));
  return m ? { component: m[1], release: core(m[2]) } : null;
}

export const compareSap: Compare = byGrammar(parseSap, (x, y) =>
  x.component !== y.component ? 'needs_review' : compareTuple(x.release, y.release),
);
