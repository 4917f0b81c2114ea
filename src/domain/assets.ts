// v1 asset records of POST /api/v1/assets/correlate-cves (docs/correlation.md §5). Pure.
// Each asset is validated alone (a refused asset never refuses the call) with the v2 privacy rules: no
// hostnames, IPs, MACs, domains or serials, neither as field names nor in asset_id (domain/windows/identifying.ts).
import {
  badText,
  identifyingAssetId,
  innerBreak,
  invisibleIn,
  INVISIBLE_MESSAGE,
  macOrEmailIn,
  normalizeText,
  replaceBadText,
} from './windows/identifying.ts';
import { isForbiddenFieldName, isPlaceholder } from './windows/field-checks.ts';
import { cpeVersion, parseCpe } from './cpe-name.ts';
import { isRecord } from './is-record.ts';
import { isOneOf } from './one-of.ts';

export const ASSET_FIELDS = ['asset_id', 'vendor', 'product', 'version', 'cpe'] as const;
const MAX_NAME_LENGTH = 200;

export type AssetErrorCode =
  | 'forbidden_field'
  | 'forbidden_value'
  | 'unknown_field'
  | 'placeholder_value'
  | 'missing_field'
  | 'invalid_value'
  | 'invalid_cpe'
  // Given by the service, which sees the whole request: a second asset with the same asset_id.
  | 'duplicate_asset_id';

export interface AssetError {
  code: AssetErrorCode;
  field: string;
  message: string;
}

export interface AssetRecord {
  asset_id: string;
  vendor: string;
  product: string;
  /** null: unknown (sent empty or omitted). */
  version: string | null;
  cpe: string | null;
}

// Product names legitimately contain dots ("Node.js", "ASP.NET Core"), so vendor and product are refused only for an
// address or e-mail inside them, not for a domain-like word.
const DOTTED_QUAD = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
// A dotted quad joined to a package release is a version, not an address: "cbl2 kernel 5.15.153.1-2 on CBL Mariner
// 2.0" (a release suffix), "kernel-5.10.57.1-1.cm1.aarch64.rpm" (joined to the package name), as Microsoft's and the
// distributions' product names spell them.
const RELEASE_AFTER = /^-\d/;
const NAME_BEFORE = /[a-z]-$/i;

/** True when a vendor or product name holds a dotted quad that reads as an IPv4 address (not joined to a release). */
function ipv4InName(name: string): boolean {
  for (const m of name.matchAll(DOTTED_QUAD)) {
    const end = m.index + m[0].length;
    if (
      !RELEASE_AFTER.test(name.slice(end, end + 2)) &&
      !NAME_BEFORE.test(name.slice(Math.max(0, m.index - 2), m.index))
    )
      return true;
  }
  return false;
}

// A version is refused for a MAC or an e-mail address inside (macOrEmailIn), never for a dotted quad:
// "10.0.17763.4974" and "2.2.0.3" are versions.

export type AssetValidation =
  { ok: true; asset: AssetRecord } | { ok: false; asset_id: string | null; errors: AssetError[] };

/**
 * `knownProduct`: true for a name the product catalog lists (case aside). Such a name is accepted even when it holds
 * a dotted quad ("Microsoft.PowerShell.Archive 1.2.2.0", "Mono Framework Version 5.0.0.48"): the service lists it, so a
 * user copies it. It is asked only about product names ipv4InName refuses (services/asset-correlation.ts collects
 * them, asks the catalog once, and validates those assets again).
 */
export function validateAsset(input: unknown, knownProduct: (name: string) => boolean = () => false): AssetValidation {
  if (!isRecord(input)) {
    return {
      ok: false,
      asset_id: null,
      errors: [{ code: 'missing_field', field: 'asset_id', message: 'an asset must be an object' }],
    };
  }
  const rec = input;
  const errors: AssetError[] = [];
  const err = (code: AssetErrorCode, field: string, message: string) => errors.push({ code, field, message });
  for (const key of Object.keys(rec)) {
    if (isOneOf(ASSET_FIELDS, key)) continue;
    // A field name holding NUL or a lone surrogate is named with U+FFFD in their place (the answer stays text).
    const name = badText(key) ? replaceBadText(key) : key;
    if (isForbiddenFieldName(key))
      err('forbidden_field', name, 'identifying data must not be sent; nothing of this asset was stored');
    else err('unknown_field', name, 'field is not part of the asset record (asset_id, vendor, product, version, cpe)');
  }
  const text: Partial<Record<(typeof ASSET_FIELDS)[number], string | null>> = {};
  for (const f of ASSET_FIELDS) {
    const v = rec[f];
    if (v === undefined || v === null) {
      text[f] = null;
      continue;
    }
    if (typeof v !== 'string') {
      err('invalid_value', f, `${f} must be a string`);
      continue;
    }
    if (badText(v) || innerBreak(v)) {
      err('forbidden_value', f, 'control characters and unpaired surrogates are not allowed (UTF-8 text only)');
      continue;
    }
    if (f === 'asset_id' && invisibleIn(v)) {
      err('forbidden_value', f, INVISIBLE_MESSAGE);
      continue;
    }
    const t = normalizeText(v);
    if (isPlaceholder(t)) {
      err('placeholder_value', f, 'placeholder value; send an empty value for unknown');
      continue;
    }
    if (t.length > MAX_NAME_LENGTH) {
      err('invalid_value', f, `${f} is longer than ${MAX_NAME_LENGTH} characters`);
      continue;
    }
    text[f] = t === '' ? null : t;
  }
  const has = (f: (typeof ASSET_FIELDS)[number]) => !errors.some((e) => e.field === f);
  let assetId: string | null = null;
  if (has('asset_id')) {
    const id = text.asset_id;
    if (!id) err('missing_field', 'asset_id', 'required field is missing');
    else if (id.length > 64 || identifyingAssetId(id))
      err(
        'forbidden_value',
        'asset_id',
        'asset_id must be a scrubbed identifier of at most 64 characters (not a hostname, IP, MAC, domain name or serial number)',
      );
    else assetId = id;
  }
  for (const f of ['vendor', 'product'] as const) {
    if (!has(f)) continue;
    if (!text[f]) err('missing_field', f, 'required field is missing');
    else if (macOrEmailIn(text[f]) || (ipv4InName(text[f]) && !(f === 'product' && knownProduct(text[f]))))
      err('forbidden_value', f, `${f} must name the vendor's product, not a host, address or person`);
  }
  if (has('version') && text.version && macOrEmailIn(text.version))
    err('forbidden_value', 'version', "version must name the product's version, not a host, address or person");
  const cpe = text.cpe ? parseCpe(text.cpe) : null;
  if (text.cpe && !cpe)
    err('invalid_cpe', 'cpe', 'cpe must be a CPE 2.3 formatted string (cpe:2.3:part:vendor:product:version:...)');
  if (errors.length) return { ok: false, asset_id: assetId, errors };
  // No version typed: the CPE's version (with its update component, as NVD's ranges read it) is the asset's version;
  // a CPE with `*` or `-` states none. A typed version wins.
  const version = text.version ?? (cpe ? cpeVersion(cpe) : null);
  return {
    ok: true,
    asset: { asset_id: assetId!, vendor: text.vendor!, product: text.product!, version, cpe: text.cpe ?? null },
  };
}
