// Formats of Windows host values that are no identifying data: the parts of an OS build and the date-time of
// collected_at. Pure.

/**
 * Whether each part of a build fits the registry value it comes from (major and minor version bytes, CurrentBuild
 * as a 16-bit number, the UBR a DWORD): a longer number is no build, and read as one it would clear every CVE.
 */
export function buildInRange(build: string): boolean {
  const [major, minor, current, ubr] = build.split('.').map(Number);
  return major <= 255 && minor <= 255 && current <= 65535 && (ubr === undefined || ubr <= 4294967295);
}

/**
 * How far after the time of the request a collected_at may be: a collector's clock that is off, or local time sent
 * with a wrong zone (at most 14 hours apart), is tolerated; a later time cannot be when the host was looked at
 * (docs/windows-api.md "collected_at").
 */
export const COLLECTED_AT_MAX_AHEAD_MS = 24 * 60 * 60 * 1000;

export const ISO_TZ_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Whether an ISO_TZ_RE date-time names a real instant: a month of the year, a day of that month, an hour, minute and
 * second of a day (Date.parse rolls 2026-02-30 over to March 2 instead of refusing it).
 */
export function onTheCalendar(t: string): boolean {
  const [y, mo, d, h, mi, s] = [
    t.slice(0, 4),
    t.slice(5, 7),
    t.slice(8, 10),
    t.slice(11, 13),
    t.slice(14, 16),
    t[16] === ':' ? t.slice(17, 19) : '0',
  ].map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && s <= 59;
}
