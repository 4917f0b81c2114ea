// Per-host validation of spec §2.6 / §4.2 ("Per-host validation" table). Pure and shared by the JSON and
// the CSV paths: the CSV adapter turns each row into the same field → value record first (installed_kbs
// split on ';'). Each host is validated alone. Messages never echo a submitted value, so a forbidden value
// (hostname, IP, MAC...) cannot leak back through an error.

export const HOST_FIELDS = [
  'asset_id', 'os_product', 'edition_id', 'display_version', 'os_build', 'architecture', 'installation_type',
  'installed_kbs', 'kb_source', 'esu_enrolled', 'collected_at',
] as const;
export type HostField = (typeof HOST_FIELDS)[number];

export const SOFTWARE_FIELDS = ['asset_id', 'name', 'publisher', 'version'] as const;

export type InstallationType = 'Server' | 'Server Core' | 'Client';
export type Architecture = 'x64' | 'x86' | 'arm64';

/** A host record that passed validation, normalised. Empty values are null ("unknown"). */
export interface WindowsHost {
  asset_id: string;
  os_product: string;
  edition_id: string | null;
  display_version: string | null;
  os_build: string | null;
  architecture: Architecture;
  installation_type: InstallationType | null;
  /** null = not collected; [] = collected, none found. Upper-case, de-duplicated, in submitted order. */
  installed_kbs: string[] | null;
  kb_source: string | null;
  esu_enrolled: boolean | null;
  collected_at: string;
}

export type HostErrorCode =
  | 'forbidden_field' | 'forbidden_value' | 'unknown_field' | 'placeholder_value' | 'missing_field' | 'bare_windows'
  | 'invalid_build' | 'invalid_architecture' | 'invalid_installation_type' | 'missing_installation_type' | 'invalid_kb'
  | 'missing_kb_source' | 'invalid_esu' | 'invalid_collected_at';

export interface HostError {
  code: HostErrorCode;
  field: string;
  message: string;
}

export type HostWarning = 'needs_revision';

export type HostValidation =
  | { ok: true; host: WindowsHost; warnings: HostWarning[] }
  | { ok: false; asset_id: string | null; errors: HostError[] };

const REQUIRED: HostField[] = ['asset_id', 'os_product', 'edition_id', 'os_build', 'architecture', 'collected_at'];
/** Required fields that may be empty ("an empty value means unknown", spec §2.6). */
const MAY_BE_EMPTY = new Set<string>(['edition_id', 'os_build']);

// Field names that identify a host, person or site (spec §2.6 list "and similar").
const FORBIDDEN_NAME_RE =
  /(host|computer|machine|device_?name|fqdn|^ip$|ip_?addr|ipv[46]|^mac$|mac_?addr|domain|serial|user|owner|login|account|email|license|product_?key|install_?path|^path$|directory|site|customer|client_?name|company|organi[sz]ation|location|address|phone|asset_?tag|sid$)/i;

const PLACEHOLDERS = new Set(['n/a', 'na', 'n.a.', '-', '--', '---', 'unknown', 'none', 'null', 'nil', 'tbd', 'tba', '?', 'undefined', 'not available', 'not applicable', 'unavailable']);

const IPV4_RE = /^(\d{1,3}\.){3}\d{1,3}$/;
const IPV6_RE = /^[0-9a-f:]*:[0-9a-f:]*:[0-9a-f:.]*$/i;
const MAC_RE = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$|^[0-9a-f]{12}$/i;
const DOMAIN_RE = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}\.?$/i;
const ISO_TZ_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const WIN_PATH_RE = /^[a-z]:\\|^\\\\|\/(users|home)\//i;
// Windows' generated default computer names (DESKTOP-XXXXXXX, WIN-XXXXXXXXXXX, LAPTOP-XXXXXXXX).
const DEFAULT_HOSTNAME_RE = /^(desktop|laptop|win)-[a-z0-9]{7,11}$/i;

/** True when an identifier looks like an IP, MAC or domain name (spec: forbidden_value). */
export function looksIdentifying(v: string): boolean {
  const t = v.trim();
  return IPV4_RE.test(t) || (t.includes(':') && IPV6_RE.test(t)) || MAC_RE.test(t) || DOMAIN_RE.test(t) || WIN_PATH_RE.test(t) || DEFAULT_HOSTNAME_RE.test(t);
}

export function isPlaceholder(v: string): boolean {
  return PLACEHOLDERS.has(v.trim().toLowerCase());
}

function str(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v.trim() : null;
}

/** Validate one host record (JSON object, or a CSV row already turned into one). */
export function validateHost(input: unknown): HostValidation {
  const errors: HostError[] = [];
  const err = (code: HostErrorCode, field: string, message: string) => errors.push({ code, field, message });
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, asset_id: null, errors: [{ code: 'missing_field', field: 'asset_id', message: 'a host record must be an object' }] };
  }
  const rec = input as Record<string, unknown>;

  for (const key of Object.keys(rec)) {
    if ((HOST_FIELDS as readonly string[]).includes(key)) continue;
    if (FORBIDDEN_NAME_RE.test(key)) err('forbidden_field', key, 'identifying data must not be sent; nothing of this host was stored');
    else err('unknown_field', key, 'field is not part of the Windows host record (spec §2.6)');
  }

  // Placeholders: any string field (and any KB entry) holding N/A, -, unknown, ... must be sent empty instead.
  const placeholder = new Set<string>();
  for (const f of HOST_FIELDS) {
    const v = rec[f];
    if (typeof v === 'string' && v.trim() !== '' && isPlaceholder(v)) {
      placeholder.add(f);
      err('placeholder_value', f, 'placeholder value; send an empty value for unknown');
    }
  }
  for (const f of REQUIRED) {
    if (placeholder.has(f)) continue;
    const v = rec[f];
    const missing = !(f in rec) || v === null || v === undefined || (!MAY_BE_EMPTY.has(f) && typeof v === 'string' && v.trim() === '');
    if (missing) err('missing_field', f, 'required field is missing');
  }

  // asset_id: scrubbed identifier, at most 64 characters, not an IP, MAC or domain name.
  let assetId: string | null = null;
  const rawId = rec.asset_id;
  if (typeof rawId === 'string' && rawId.trim() !== '' && !placeholder.has('asset_id')) {
    const t = rawId.trim();
    if (t.length > 64 || looksIdentifying(t)) err('forbidden_value', 'asset_id', 'asset_id must be a scrubbed identifier of at most 64 characters (not a hostname, IP, MAC or domain name)');
    else assetId = t;
  } else if (rawId !== undefined && rawId !== null && typeof rawId !== 'string') {
    err('missing_field', 'asset_id', 'asset_id must be a string');
  }

  const osProduct = placeholder.has('os_product') ? null : str(rec.os_product);
  if (rec.os_product !== undefined && rec.os_product !== null && typeof rec.os_product !== 'string') err('missing_field', 'os_product', 'os_product must be a string');
  const edition = placeholder.has('edition_id') ? null : str(rec.edition_id);
  if (rec.edition_id !== undefined && rec.edition_id !== null && typeof rec.edition_id !== 'string') err('missing_field', 'edition_id', 'edition_id must be a string');
  const displayVersion = placeholder.has('display_version') ? null : str(rec.display_version);

  let osBuild: string | null = null;
  if (!placeholder.has('os_build') && rec.os_build !== undefined && rec.os_build !== null) {
    if (typeof rec.os_build !== 'string') err('invalid_build', 'os_build', 'os_build must be a string of digits and dots');
    else {
      const t = rec.os_build.trim();
      if (t !== '') {
        if (!/^\d+(\.\d+){2,3}$/.test(t)) err('invalid_build', 'os_build', 'os_build must be digits and dots: 10.0.<CurrentBuild>.<UBR>');
        else osBuild = t;
      }
    }
  }
  if (osProduct && /^(microsoft\s+)?windows$/i.test(osProduct) && !osBuild && !errors.some((e) => e.field === 'os_build')) {
    err('bare_windows', 'os_product', 'os_product is only "Windows" and there is no os_build; send the ProductName and the build');
  }

  let arch: Architecture | null = null;
  const rawArch = rec.architecture;
  if (!placeholder.has('architecture') && rawArch !== undefined && rawArch !== null && !(typeof rawArch === 'string' && rawArch.trim() === '')) {
    const a = typeof rawArch === 'string' ? rawArch.trim().toLowerCase() : '';
    if (a === 'x64' || a === 'x86' || a === 'arm64') arch = a;
    else err('invalid_architecture', 'architecture', 'architecture must be x64, x86 or arm64');
  }

  let instType: InstallationType | null = null;
  const rawInst = rec.installation_type;
  if (!placeholder.has('installation_type') && rawInst !== undefined && rawInst !== null && !(typeof rawInst === 'string' && rawInst.trim() === '')) {
    const t = typeof rawInst === 'string' ? rawInst.trim().toLowerCase().replace(/\s+/g, ' ') : '';
    if (t === 'server') instType = 'Server';
    else if (t === 'server core') instType = 'Server Core';
    else if (t === 'client') instType = 'Client';
    else err('invalid_installation_type', 'installation_type', 'installation_type must be Server, Server Core or Client');
  }
  if (edition && /^server/i.test(edition) && instType === null && !errors.some((e) => e.field === 'installation_type')) {
    err('missing_installation_type', 'installation_type', 'a server edition needs installation_type (Server or Server Core)');
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
        if (typeof k === 'string' && k.trim() !== '' && isPlaceholder(k)) { ph = true; continue; }
        if (typeof k !== 'string' || !/^KB\d{1,9}$/i.test(k.trim())) { bad = true; continue; }
        const kb = k.trim().toUpperCase();
        if (!kbs.includes(kb)) kbs.push(kb);
      }
      if (ph && !placeholder.has('installed_kbs')) err('placeholder_value', 'installed_kbs', 'placeholder value in the KB list; send an empty list for none');
      if (bad) err('invalid_kb', 'installed_kbs', 'each KB must be KB followed by digits');
    }
  }
  const kbSource = placeholder.has('kb_source') ? null : str(rec.kb_source) || null;
  if (kbSource && (looksIdentifying(kbSource) || /[a-z]:\\|\\\\/i.test(kbSource))) {
    err('forbidden_value', 'kb_source', 'kb_source must describe the method only (no paths, hosts or addresses)');
  }
  if (kbs.length > 0 && !kbSource) err('missing_kb_source', 'kb_source', 'installed_kbs needs kb_source (how the list was collected)');

  let esu: boolean | null = null;
  const rawEsu = rec.esu_enrolled;
  if (!placeholder.has('esu_enrolled') && rawEsu !== undefined && rawEsu !== null && !(typeof rawEsu === 'string' && rawEsu.trim() === '')) {
    const t = typeof rawEsu === 'string' ? rawEsu.trim().toLowerCase() : '';
    if (t === 'yes') esu = true;
    else if (t === 'no') esu = false;
    else err('invalid_esu', 'esu_enrolled', 'esu_enrolled must be yes or no');
  }

  const rawAt = rec.collected_at;
  let collectedAt: string | null = null;
  if (!placeholder.has('collected_at') && typeof rawAt === 'string' && rawAt.trim() !== '') {
    const t = rawAt.trim();
    if (!ISO_TZ_RE.test(t) || Number.isNaN(Date.parse(t))) err('invalid_collected_at', 'collected_at', 'collected_at must be ISO 8601 with a time zone, e.g. 2026-06-15T08:00:00Z');
    else collectedAt = t;
  } else if (rawAt !== undefined && rawAt !== null && typeof rawAt !== 'string') {
    err('invalid_collected_at', 'collected_at', 'collected_at must be an ISO 8601 string');
  }

  if (errors.length > 0 || !assetId || !osProduct || !arch || !collectedAt) {
    return { ok: false, asset_id: assetId, errors };
  }
  const warnings: HostWarning[] = [];
  if (osBuild && osBuild.split('.').length === 3) warnings.push('needs_revision');
  const collected = kbs.length > 0 || kbSource !== null;
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
      const t = (v ?? '').trim();
      out[k] = t === '' ? [] : t.split(';').map((s) => s.trim()).filter((s) => s !== '');
    } else {
      out[k] = v ?? '';
    }
  }
  return out;
}
