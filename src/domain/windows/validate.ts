// Per-host validation of spec §2.6 / §4.2 ("Per-host validation" table). Pure and shared by the JSON and
// the CSV paths: the CSV adapter turns each row into the same field → value record first (installed_kbs
// split on ';'). Each host is validated alone. Messages never echo a submitted value, so a forbidden value
// (hostname, IP, MAC...) cannot leak back through an error. Every text value is normalised with NFKC before it
// is checked (and stored in that form): identifying.ts holds the formats and the scan for identifying data,
// field-checks.ts the field names and placeholders refused in every record, host-values.ts the build and date-time
// formats; validate-software.ts validates the software records.
import {
  badText,
  containsIdentifying,
  innerBreak,
  invisibleIn,
  INVISIBLE_MESSAGE,
  replaceBadText,
  identifyingAssetId,
  normalizeText,
  validDisplayVersion,
  validEditionId,
  validProductName,
} from './identifying.ts';
import { isForbiddenFieldName, isPlaceholder } from './field-checks.ts';
import { buildInRange, COLLECTED_AT_MAX_AHEAD_MS, ISO_TZ_RE, onTheCalendar } from './host-values.ts';
import {
  HOST_FIELDS,
  type Architecture,
  type HostError,
  type HostErrorCode,
  type HostField,
  type HostWarning,
  type InstallationType,
  type WindowsHost,
} from './host-record.ts';
import { isRecord } from '../is-record.ts';
import { isOneOf } from '../one-of.ts';

export type HostValidation =
  | { ok: true; host: WindowsHost; warnings: HostWarning[] }
  | { ok: false; asset_id: string | null; errors: HostError[] };

const REQUIRED: HostField[] = ['asset_id', 'os_product', 'edition_id', 'os_build', 'architecture', 'collected_at'];
/** Required fields that may be empty ("an empty value means unknown", spec §2.6). */
const MAY_BE_EMPTY = new Set<string>(['edition_id', 'os_build']);

function str(v: unknown): string | null {
  return typeof v === 'string' ? normalizeText(v) : null;
}

/** Host fields of free text, where a tab or line break inside is refused (innerBreak). */
const FREE_TEXT_FIELDS: ReadonlySet<string> = new Set(['asset_id', 'kb_source']);

/**
 * Validate one host record (JSON object, or a CSV row already turned into one). `now`, the time of the request:
 * a collected_at more than COLLECTED_AT_MAX_AHEAD_MS after it is refused (without it, only the form is checked).
 */
export function validateHost(input: unknown, now?: Date): HostValidation {
  const errors: HostError[] = [];
  const err = (code: HostErrorCode, field: string, message: string) => errors.push({ code, field, message });
  if (!isRecord(input)) {
    return {
      ok: false,
      asset_id: null,
      errors: [{ code: 'missing_field', field: 'asset_id', message: 'a host record must be an object' }],
    };
  }
  const rec = input;

  for (const key of Object.keys(rec)) {
    if (isOneOf(HOST_FIELDS, key)) continue;
    // A field name holding NUL or a lone surrogate is named with U+FFFD in their place (the answer stays text).
    const name = badText(key) ? replaceBadText(key) : key;
    if (isForbiddenFieldName(key))
      err('forbidden_field', name, 'identifying data must not be sent; nothing of this host was stored');
    else err('unknown_field', name, 'field is not part of the Windows host record (spec §2.6)');
  }

  // Text that cannot be stored faithfully (NUL, control characters, a lone surrogate) is refused in every field;
  // a tab or line break inside asset_id or kb_source too (the other fields read it as spacing).
  const unreadable = new Set<string>();
  for (const f of HOST_FIELDS) {
    const v = rec[f];
    const texts =
      // Stryker disable next-line ArrayDeclaration: a fallback text no input reaches: the field was refused earlier, or is a string here
      typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    if (texts.some(badText) || (FREE_TEXT_FIELDS.has(f) && texts.some(innerBreak))) {
      unreadable.add(f);
      err('forbidden_value', f, 'control characters and unpaired surrogates are not allowed (UTF-8 text only)');
    } else if (f === 'asset_id' && texts.some(invisibleIn)) {
      unreadable.add(f);
      err('forbidden_value', f, INVISIBLE_MESSAGE);
    }
  }

  // Placeholders: any string field (and any KB entry) holding N/A, -, unknown, ... must be sent empty instead.
  const placeholder = new Set<string>();
  for (const f of HOST_FIELDS) {
    const v = rec[f];
    if (typeof v === 'string' && !unreadable.has(f) && isPlaceholder(normalizeText(v))) {
      placeholder.add(f);
      err('placeholder_value', f, 'placeholder value; send an empty value for unknown');
    }
  }
  for (const f of REQUIRED) {
    if (placeholder.has(f) || unreadable.has(f)) continue;
    const v = rec[f];
    const missing =
      !(f in rec) ||
      v === null ||
      v === undefined ||
      (!MAY_BE_EMPTY.has(f) && typeof v === 'string' && v.trim() === '');
    if (missing) err('missing_field', f, 'required field is missing');
  }

  // asset_id: scrubbed identifier, at most 64 characters, not an IP, MAC or domain name.
  let assetId: string | null = null;
  const rawId = rec.asset_id;
  if (typeof rawId === 'string' && rawId.trim() !== '' && !placeholder.has('asset_id') && !unreadable.has('asset_id')) {
    const t = normalizeText(rawId);
    if (t.length > 64 || identifyingAssetId(t))
      err(
        'forbidden_value',
        'asset_id',
        'asset_id must be a scrubbed identifier of at most 64 characters (not a hostname, IP, MAC, domain name or serial number)',
      );
    else assetId = t;
  } else if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') {
    err('missing_field', 'asset_id', 'asset_id must be a string');
  }

  // os_product, edition_id and display_version have formats of their own (windows-engine.md §3.1): a value
  // outside them may name a host, site or customer, so it is refused as forbidden_value (never echoed).
  const skip = (f: HostField) => placeholder.has(f) || unreadable.has(f);
  let osProduct = skip('os_product') ? null : str(rec.os_product);
  if (rec.os_product !== undefined && rec.os_product !== null && typeof rec.os_product !== 'string')
    err('missing_field', 'os_product', 'os_product must be a string');
  if (osProduct && !validProductName(osProduct)) {
    err(
      'forbidden_value',
      'os_product',
      'os_product must be the Windows ProductName as the host reports it (e.g. Windows Server 2019 Datacenter), nothing else',
    );
    osProduct = null;
  }
  const edition = skip('edition_id') ? null : str(rec.edition_id);
  if (rec.edition_id !== undefined && rec.edition_id !== null && typeof rec.edition_id !== 'string')
    err('missing_field', 'edition_id', 'edition_id must be a string');
  if (edition && !validEditionId(edition))
    err(
      'forbidden_value',
      'edition_id',
      'edition_id must be a Windows EditionID (e.g. ServerDatacenter, ServerStandard, Enterprise, EnterpriseS, Professional)',
    );
  const displayVersion = skip('display_version') ? null : str(rec.display_version);
  if (rec.display_version !== undefined && rec.display_version !== null && typeof rec.display_version !== 'string')
    err('missing_field', 'display_version', 'display_version must be a string');
  if (displayVersion && !validDisplayVersion(displayVersion))
    err(
      'forbidden_value',
      'display_version',
      'display_version must be a DisplayVersion (e.g. 22H2) or a ReleaseId (e.g. 1809)',
    );

  let osBuild: string | null = null;
  if (!placeholder.has('os_build') && rec.os_build !== undefined && rec.os_build !== null) {
    if (typeof rec.os_build !== 'string')
      err('invalid_build', 'os_build', 'os_build must be a string of digits and dots');
    else {
      const t = rec.os_build.trim();
      if (t !== '') {
        if (!/^\d+(\.\d+){2,3}$/.test(t))
          err('invalid_build', 'os_build', 'os_build must be digits and dots: 10.0.<CurrentBuild>.<UBR>');
        else if (!buildInRange(t))
          err(
            'invalid_build',
            'os_build',
            'os_build is not a Windows build: major and minor go to 255, CurrentBuild to 65535 and the UBR to 4294967295',
          );
        else osBuild = t;
      }
    }
  }
  // "No os_build" (spec §4.2) is an empty, null or absent one (which is also missing_field); a build that is there
  // but wrong has its own error instead.
  if (
    osProduct &&
    /^(microsoft\s+)?windows$/i.test(osProduct) &&
    !osBuild &&
    !errors.some((e) => e.field === 'os_build' && e.code !== 'missing_field')
  ) {
    err(
      'bare_windows',
      'os_product',
      'os_product is only "Windows" and there is no os_build; send the ProductName and the build',
    );
  }

  let arch: Architecture | null = null;
  const rawArch = rec.architecture;
  if (
    !placeholder.has('architecture') &&
    rawArch !== undefined &&
    rawArch !== null &&
    !(typeof rawArch === 'string' && rawArch.trim() === '')
  ) {
    // Stryker disable next-line StringLiteral: a fallback text no input reaches: the field was refused earlier, or is a string here
    const a = typeof rawArch === 'string' ? rawArch.trim().toLowerCase() : '';
    if (a === 'x64' || a === 'x86' || a === 'arm64') arch = a;
    else err('invalid_architecture', 'architecture', 'architecture must be x64, x86 or arm64');
  }

  let instType: InstallationType | null = null;
  const rawInst = rec.installation_type;
  if (
    !placeholder.has('installation_type') &&
    rawInst !== undefined &&
    rawInst !== null &&
    !(typeof rawInst === 'string' && rawInst.trim() === '')
  ) {
    // Stryker disable next-line StringLiteral: a fallback text no input reaches: the field was refused earlier, or is a string here
    const t = typeof rawInst === 'string' ? rawInst.trim().toLowerCase().replace(/\s+/g, ' ') : '';
    if (t === 'server') instType = 'Server';
    else if (t === 'server core') instType = 'Server Core';
    else if (t === 'client') instType = 'Client';
    else
      err('invalid_installation_type', 'installation_type', 'installation_type must be Server, Server Core or Client');
  }
  if (
    edition &&
    /^server/i.test(edition) &&
    instType === null &&
    !errors.some((e) => e.field === 'installation_type')
  ) {
    err(
      'missing_installation_type',
      'installation_type',
      'a server edition needs installation_type (Server or Server Core)',
    );
  }

  // installed_kbs: JSON list of strings (CSV: ';'-separated, split by the adapter). Duplicates ignored.
  const kbs: string[] = [];
  const rawKbs = rec.installed_kbs;
  if (rawKbs !== undefined && rawKbs !== null) {
    if (!Array.isArray(rawKbs)) err('invalid_kb', 'installed_kbs', 'installed_kbs must be a list of KB numbers');
    else {
      let bad = false;
      let ph = false;
      for (const k of rawKbs) {
        if (typeof k === 'string' && isPlaceholder(k)) {
          ph = true;
          continue;
        }
        if (typeof k !== 'string' || !/^KB\d{1,9}$/i.test(k.trim())) {
          bad = true;
          continue;
        }
        const kb = k.trim().toUpperCase();
        if (!kbs.includes(kb)) kbs.push(kb);
      }
      if (ph)
        err('placeholder_value', 'installed_kbs', 'placeholder value in the KB list; send an empty list for none');
      if (bad) err('invalid_kb', 'installed_kbs', 'each KB must be KB followed by digits');
    }
  }
  const kbSource = skip('kb_source') ? null : str(rec.kb_source) || null;
  if (rec.kb_source !== undefined && rec.kb_source !== null && typeof rec.kb_source !== 'string')
    err('missing_field', 'kb_source', 'kb_source must be a string');
  if (kbSource && (kbSource.length > 200 || containsIdentifying(kbSource))) {
    err(
      'forbidden_value',
      'kb_source',
      'kb_source must describe the method only, in at most 200 characters (no paths, hosts, addresses, URLs or e-mail addresses)',
    );
  }
  if (kbs.length > 0 && !kbSource)
    err('missing_kb_source', 'kb_source', 'installed_kbs needs kb_source (how the list was collected)');

  let esu: boolean | null = null;
  const rawEsu = rec.esu_enrolled;
  if (
    !placeholder.has('esu_enrolled') &&
    rawEsu !== undefined &&
    rawEsu !== null &&
    !(typeof rawEsu === 'string' && rawEsu.trim() === '')
  ) {
    // Stryker disable next-line StringLiteral: a fallback text no input reaches: the field was refused earlier, or is a string here
    const t = typeof rawEsu === 'string' ? rawEsu.trim().toLowerCase() : '';
    if (t === 'yes') esu = true;
    else if (t === 'no') esu = false;
    else err('invalid_esu', 'esu_enrolled', 'esu_enrolled must be yes or no');
  }

  const rawAt = rec.collected_at;
  let collectedAt: string | null = null;
  if (!placeholder.has('collected_at') && typeof rawAt === 'string' && rawAt.trim() !== '') {
    const t = rawAt.trim();
    if (!ISO_TZ_RE.test(t) || !onTheCalendar(t) || Number.isNaN(Date.parse(t)))
      err(
        'invalid_collected_at',
        'collected_at',
        'collected_at must be ISO 8601 with a time zone, e.g. 2026-06-15T08:00:00Z',
      );
    else if (now && Date.parse(t) - now.getTime() > COLLECTED_AT_MAX_AHEAD_MS) {
      err(
        'invalid_collected_at',
        'collected_at',
        'collected_at is more than 24 hours in the future; send when the data was collected (check the clock and time zone of the collecting machine)',
      );
    } else collectedAt = t;
  } else if (rawAt !== undefined && rawAt !== null && typeof rawAt !== 'string') {
    err('invalid_collected_at', 'collected_at', 'collected_at must be an ISO 8601 string');
  }

  if (errors.length > 0 || !assetId || !osProduct || !arch || !collectedAt) {
    return { ok: false, asset_id: assetId, errors };
  }
  const warnings: HostWarning[] = [];
  if (osBuild && osBuild.split('.').length === 3) warnings.push('needs_revision');
  // KBs without kb_source were refused above: a kb_source is what tells a collected list (even empty) from none.
  const collected = kbSource !== null;
  return {
    ok: true,
    warnings,
    host: {
      asset_id: assetId,
      os_product: osProduct,
      edition_id: edition || null,
      display_version: displayVersion || null,
      os_build: osBuild,
      architecture: arch,
      installation_type: instType,
      installed_kbs: collected ? kbs : null,
      kb_source: kbSource || null,
      esu_enrolled: esu,
      collected_at: collectedAt,
    },
  };
}

/** Turn one CSV row (header → cell text) into the record validateHost takes: installed_kbs split on ';'. */
export function csvRowToHostRecord(row: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'installed_kbs') {
      out[k] = (v ?? '')
        .split(';')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    } else {
      out[k] = v ?? '';
    }
  }
  return out;
}
