// Host facts → MSRC product (windows-engine.md §3.2 "Decision procedure").
// The build line plus client/server decides, never the ProductName text: Windows 11 reports "Windows 10"
// (trap 1); 14393, 17763 and 26100 are shared by a client and a server (trap 2); Server Core is its own
// product (trap 4). Without an edition or installation type, every product that fits the build is a candidate.
import { parseOsBuild, type OsBuild } from './build.ts';
import { WINDOWS_PRODUCTS, type WindowsProduct } from './products.ts';
import type { WindowsHost } from './host-record.ts';

export interface ProductMatch {
  /** Products that fit; one when the match is exact, several when edition/installation type is missing. */
  products: WindowsProduct[];
  build: OsBuild | null;
  /**
   * 'build' = evaluated by build/KB; 'revision' = three-part build; 'no_build'; 'unmapped'; 'bare_name' = the
   * product name is only "Windows" (spec §4.2 rule 4: product-level whatever the build; the build only says
   * which products fit).
   */
  level: 'build' | 'revision' | 'no_build' | 'unmapped' | 'bare_name';
  notes: string[];
}

type FamilyHint = 'client' | 'server' | null;

function familyOf(host: WindowsHost, notes: string[]): FamilyHint {
  const fromInst: FamilyHint =
    host.installation_type === null ? null : host.installation_type === 'Client' ? 'client' : 'server';
  const fromEdition: FamilyHint =
    host.edition_id === null ? null : /^server/i.test(host.edition_id) ? 'server' : 'client';
  if (fromInst && fromEdition && fromInst !== fromEdition) {
    notes.push(
      `installation_type (${host.installation_type}) and edition_id disagree on client/server; installation_type used`,
    );
  }
  return fromInst ?? fromEdition;
}

// Server names without a build (product-level hosts): ProductName text is all there is.
const SERVER_TEXT: [RegExp, number, string][] = [
  [/server 2008 r2/i, 7601, '6.1'],
  [/server 2008/i, 6003, '6.0'],
  [/server 2012 r2/i, 9600, '6.3'],
  [/server 2012/i, 9200, '6.2'],
  [/server 2016/i, 14393, '10.0'],
  [/server 2019/i, 17763, '10.0'],
  [/server 2022/i, 20348, '10.0'],
  [/server 2025/i, 26100, '10.0'],
];
const CLIENT_TEXT: [RegExp, number, string][] = [
  [/windows 7/i, 7601, '6.1'],
  [/windows 8\.1/i, 9600, '6.3'],
];

/** A bare Windows product name: "Windows" and nothing that names the version or edition. */
export function isBareWindowsName(osProduct: string): boolean {
  return /^\s*windows\s*$/i.test(osProduct);
}

function fits(p: WindowsProduct, major: string, build: number, host: WindowsHost, family: FamilyHint): boolean {
  if (p.major !== major || p.build !== build) return false;
  if (p.arch !== host.architecture) return false;
  if (family && p.family !== family) return false;
  // Server Core is its own product (trap 4): a known installation type picks core or not (client products never are).
  if (host.installation_type !== null && p.core !== (host.installation_type === 'Server Core')) return false;
  return true;
}

/** A product's name without its platform ("Windows 11 Version 24H2 for x64-based Systems" → "Windows 11 Version 24H2"). */
// Stryker disable next-line Regex: a product name holds " for " once, at its end part: .* reaches the end either way
const shortName = (p: WindowsProduct): string => p.name.replace(/ for .*$/, '');

export function matchHost(host: WindowsHost): ProductMatch {
  const notes: string[] = [];
  const family = familyOf(host, notes);
  const b = host.os_build ? parseOsBuild(host.os_build) : null;
  let major: string | null = b?.major ?? null;
  let build: number | null = b?.build ?? null;
  if (!b) {
    const table =
      family === 'client' ? CLIENT_TEXT : family === 'server' ? SERVER_TEXT : [...SERVER_TEXT, ...CLIENT_TEXT];
    const hit = table.find(([re]) => re.test(host.os_product));
    if (hit) {
      build = hit[1];
      major = hit[2];
    }
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: major and build are set together (both from one parse), so either is null exactly when both are
  if (major === null || build === null) {
    return {
      products: [],
      build: null,
      level: 'no_build',
      notes: [...notes, 'no os_build: the Windows version cannot be told from the product name alone'],
    };
  }
  const products = [...WINDOWS_PRODUCTS.values()].filter((p) => fits(p, major, build, host, family));
  // Only the own build of a product matches (19045 → 22H2, not 21H2): the group is for FixedBuilds only.
  if (products.length === 0) {
    const why =
      host.architecture === 'x86' && build >= 22000
        ? 'there is no 32-bit Windows 11'
        : `no Microsoft product for build ${major}.${build} on ${host.architecture}${family ? ` (${family})` : ''}`;
    return { products: [], build: b, level: 'unmapped', notes: [...notes, why] };
  }
  // A ProductName that names another version than the build (an imaged or upgraded host reporting stale text): the
  // build decides, and the note says the inventory disagrees with itself.
  const named = b ? [...SERVER_TEXT, ...CLIENT_TEXT].find(([re]) => re.test(host.os_product)) : undefined;
  if (named && (named[1] !== build || named[2] !== major)) {
    notes.push(
      `ProductName "${host.os_product}" is build ${named[2]}.${named[1]}, but os_build is ${major}.${build} (${shortName(products[0])}); the build decides`,
    );
  }
  if (/windows 10/i.test(host.os_product) && build >= 22000 && products.every((p) => p.family === 'client')) {
    notes.push(
      `ProductName says Windows 10; build ${build} is ${shortName(products[0])} (Windows 11 reports Windows 10)`,
    );
  }
  if (/server/i.test(host.os_product) && products.every((p) => p.family === 'client')) {
    notes.push('ProductName names a server but edition/installation type say client');
  }
  if (b && isBareWindowsName(host.os_product)) {
    // Rule 4: a bare name keeps the host product-level, whatever the build; say which products the build fits.
    notes.push(
      `os_product is only "Windows": the host stays product-level whatever the build; build ${host.os_build} fits ${products.map((p) => p.name).join('; ')}`,
    );
    return { products, build: b, level: 'bare_name', notes };
  }
  if (products.length > 1) {
    notes.push(`edition not supplied: build ${major}.${build} fits ${products.map((p) => p.name).join('; ')}`);
  }
  const level = !b ? 'no_build' : b.ubr === null ? 'revision' : 'build';
  return { products, build: b, level, notes };
}
