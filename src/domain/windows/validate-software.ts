// Per-record validation of installed software (spec §2.6): stored only for hosts accepted in the same call; a record
// naming a host together with an identifying field refuses that host whole. Messages never echo a submitted value.
// Pure.
import {
  badText,
  identifyingAssetId,
  identifyingInSoftware,
  innerBreak,
  normalizeText,
  replaceBadText,
} from './identifying.ts';
import { isForbiddenFieldName, isPlaceholder } from './field-checks.ts';
import type { HostErrorCode } from './host-record.ts';
import { isRecord } from '../is-record.ts';
import { isOneOf } from '../one-of.ts';

export const SOFTWARE_FIELDS = ['asset_id', 'name', 'publisher', 'version'] as const;

/** Software records have the host codes plus unknown_host (software of a host not accepted in this call). */
export interface SoftwareError {
  code: HostErrorCode | 'unknown_host';
  field: string;
  message: string;
}
export interface SoftwareRecord {
  asset_id: string;
  name: string;
  publisher: string | null;
  version: string | null;
}
export interface SoftwareRejection {
  asset_id: string | null;
  index: number;
  errors: SoftwareError[];
}

const isSoftwareField = (k: string): boolean => isOneOf(SOFTWARE_FIELDS, k);
/** A software record field outside the contract that names a host, person or site (install_path, hostname, …). */
const identifyingSoftwareField = (k: string): boolean => !isSoftwareField(k) && isForbiddenFieldName(k);

/**
 * The asset_ids that software records name together with a field identifying a host, person or site (hostname,
 * install_path, user_name, …): such a host is refused whole, as if the field were in its host record (spec §4.2:
 * nothing of a refused host is stored). Records without a string asset_id name no host.
 */
export function identifyingSoftwareHosts(items: unknown[]): Set<string> {
  const out = new Set<string>();
  for (const raw of items) {
    if (!isRecord(raw)) continue;
    const r = raw;
    if (typeof r.asset_id !== 'string') continue;
    if (Object.keys(r).some(identifyingSoftwareField)) out.add(normalizeText(r.asset_id));
  }
  return out;
}

/** Validate installed software (spec §2.6): stored only for hosts accepted in the same call. */
export function validateSoftware(
  items: unknown[],
  accepted: Set<string>,
): { stored: SoftwareRecord[]; rejected: SoftwareRejection[] } {
  const stored: SoftwareRecord[] = [];
  const rejected: SoftwareRejection[] = [];
  const seen = new Set<string>();
  items.forEach((raw, index) => {
    const errors: SoftwareError[] = [];
    if (!isRecord(raw)) {
      rejected.push({
        asset_id: null,
        index,
        errors: [{ code: 'missing_field', field: 'asset_id', message: 'a software record must be an object' }],
      });
      return;
    }
    const r = raw;
    for (const k of Object.keys(r)) {
      if (isSoftwareField(k)) continue;
      const name = badText(k) ? replaceBadText(k) : k;
      if (identifyingSoftwareField(k))
        errors.push({
          code: 'forbidden_field',
          field: name,
          message: 'identifying data must not be sent; nothing of this host was stored',
        });
      else
        errors.push({
          code: 'unknown_field',
          field: name,
          message: 'field is not part of the software record (asset_id, name, publisher, version)',
        });
    }
    const unreadable: ReadonlySet<string> = new Set(
      SOFTWARE_FIELDS.filter((k) => typeof r[k] === 'string' && (badText(r[k]) || innerBreak(r[k]))),
    );
    for (const k of unreadable)
      errors.push({
        code: 'forbidden_value',
        field: k,
        message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
      });
    // Stryker disable StringLiteral: a fallback text no input reaches: the field was refused earlier, or is a string here
    const str = (k: string) =>
      unreadable.has(k)
        ? ''
        : typeof r[k] === 'string'
          ? normalizeText(r[k])
          : r[k] === undefined || r[k] === null
            ? ''
            : null;
    // Stryker restore StringLiteral
    const assetId = str('asset_id');
    const name = str('name');
    let echo: string | null = null;
    if (unreadable.has('asset_id')) {
      /* refused above */
    } else if (!assetId)
      errors.push({ code: 'missing_field', field: 'asset_id', message: 'required field is missing' });
    else if (assetId.length > 64 || identifyingAssetId(assetId))
      errors.push({ code: 'forbidden_value', field: 'asset_id', message: 'asset_id must be a scrubbed identifier' });
    else if (!accepted.has(assetId))
      errors.push({
        code: 'unknown_host',
        field: 'asset_id',
        message: 'software is stored only for hosts listed (and accepted) in windows_hosts',
      });
    else echo = assetId;
    if (!name && !unreadable.has('name'))
      errors.push({ code: 'missing_field', field: 'name', message: 'required field is missing' });
    for (const k of ['name', 'publisher', 'version']) {
      const v = str(k);
      if (v === null) errors.push({ code: 'missing_field', field: k, message: 'must be a string' });
      else if (v.length > 500) errors.push({ code: 'forbidden_value', field: k, message: 'at most 500 characters' });
      else if (v && isPlaceholder(v))
        errors.push({
          code: 'placeholder_value',
          field: k,
          message: 'placeholder value; send an empty value for unknown',
        });
      else if (v && /[a-z]:\\|\\\\/i.test(v))
        errors.push({ code: 'forbidden_value', field: k, message: 'install paths must not be sent' });
      else if (v && identifyingInSoftware(v))
        errors.push({
          code: 'forbidden_value',
          field: k,
          message: 'must not hold an e-mail or MAC address or a licence key',
        });
    }
    if (errors.length) {
      rejected.push({ asset_id: echo, index, errors });
      return;
    }
    const rec = {
      asset_id: assetId!,
      name: name!,
      publisher: str('publisher') || null,
      version: str('version') || null,
    };
    // The same record twice (a collector listing a product under two registry keys) is one installed product: kept
    // once, not stored and counted twice.
    const key = JSON.stringify([rec.asset_id, rec.name, rec.publisher, rec.version]);
    if (seen.has(key)) return;
    seen.add(key);
    stored.push(rec);
  });
  return { stored, rejected };
}
