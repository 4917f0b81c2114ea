// Checks every submitted record shares (Windows hosts, installed software, v1 assets): field names that identify a
// host, person or site, and placeholder values that must be sent empty instead. Pure.
import { identifyingAssetId } from './identifying.ts';

// Field names that identify a host, person or site (spec §2.6 list "and similar").
const FORBIDDEN_NAME_RE =
  /(host|computer|machine|device_?name|fqdn|^ip$|ip_?addr|ipv[46]|^mac$|mac_?addr|domain|serial|user|owner|login|account|email|license|product_?key|install_?path|^path$|directory|site|customer|client_?name|company|organi[sz]ation|location|address|phone|asset_?tag|sid$)/i;

const PLACEHOLDERS = new Set([
  'n/a',
  'na',
  'n.a.',
  '-',
  '--',
  '---',
  'unknown',
  'none',
  'null',
  'nil',
  'tbd',
  'tba',
  '?',
  'undefined',
  'not available',
  'not applicable',
  'unavailable',
]);

/** True when an identifier looks like an IP, MAC, domain or host name, a path or URL (spec: forbidden_value). */
export function looksIdentifying(v: string): boolean {
  return identifyingAssetId(v);
}

/** A field name that identifies a host, person or site (spec §2.6, §4.2 forbidden_field); also used by v1 assets. */
export function isForbiddenFieldName(name: string): boolean {
  return FORBIDDEN_NAME_RE.test(name);
}

export function isPlaceholder(v: string): boolean {
  return PLACEHOLDERS.has(v.trim().toLowerCase());
}
