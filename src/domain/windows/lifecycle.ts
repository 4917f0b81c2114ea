// Windows lifecycle and ESU periods: one table, every row with its source.
// Sources: E = shared/data/windows-lifecycle (endoflife.date commit a70eca3, 2026-08-22; windows.md /
// windows-server.md, `eol` = end of security support, `eoes` = end of ESU); R = shared/docs/windows-engine.md §4
// (learn.microsoft.com lifecycle pages as cited there). Dates are Microsoft's Pacific-time dates.
// End of life is computed per request from the injected clock date (trap 20): never cache a flag.

export type EditionClass = 'consumer' | 'enterprise' | 'ltsc' | 'iot_ltsc' | 'server';

export interface LifecycleRow {
  /** End of security support per edition class; `default` covers classes not listed. */
  eol: Partial<Record<EditionClass, string>> & { default: string };
  /** End of the ESU programme per edition class, when one exists. */
  esu?: Partial<Record<EditionClass, string>> & { default?: string };
  source: string;
}

export const LIFECYCLE: Readonly<Record<string, LifecycleRow>> = {
  'w10-1507': {
    eol: { default: '2017-05-09', ltsc: '2025-10-14', iot_ltsc: '2025-10-14' },
    source: 'E windows.md 10-1507, 10-1507-e-lts; R §4.1',
  },
  'w10-1511': { eol: { default: '2017-10-10' }, source: 'E windows.md 10-1511' },
  'w10-1607': {
    eol: { consumer: '2018-04-10', default: '2019-04-09', ltsc: '2026-10-13', iot_ltsc: '2026-10-13' },
    source: 'E windows.md 10-1607-w/-e/-e-lts; R §4.1',
  },
  'w10-1703': { eol: { consumer: '2018-10-09', default: '2019-10-08' }, source: 'E windows.md 10-1703-w/-e' },
  'w10-1709': { eol: { consumer: '2019-04-09', default: '2020-10-13' }, source: 'E windows.md 10-1709-w/-e' },
  'w10-1803': { eol: { consumer: '2019-11-12', default: '2021-05-11' }, source: 'E windows.md 10-1803-w/-e' },
  'w10-1809': {
    eol: { consumer: '2020-11-10', default: '2021-05-11', ltsc: '2029-01-09', iot_ltsc: '2029-01-09' },
    source: 'E windows.md 10-1809-w/-e/-e-lts; R §4.1',
  },
  'w10-1903': { eol: { default: '2020-12-08' }, source: 'E windows.md 10-1903' },
  'w10-1909': { eol: { consumer: '2021-05-11', default: '2022-05-10' }, source: 'E windows.md 10-1909-w/-e' },
  'w10-2004': { eol: { default: '2021-12-14' }, source: 'E windows.md 10-2004' },
  'w10-20h2': { eol: { consumer: '2022-05-10', default: '2023-05-09' }, source: 'E windows.md 10-20h2-w/-e' },
  'w10-21h1': { eol: { default: '2022-12-13' }, source: 'E windows.md 10-21h1' },
  'w10-21h2': {
    eol: { consumer: '2023-06-13', default: '2024-06-11', ltsc: '2027-01-12', iot_ltsc: '2032-01-13' },
    source: 'E windows.md 10-21h2-w/-e/-e-lts/-iot-lts; R §4.1',
  },
  // Windows 10 22H2 ESU: consumer one year to 2026-10-13; commercial up to year 3, 2028-10-10 (E eoes; R §4.1).
  'w10-22h2': {
    eol: { default: '2025-10-14' },
    esu: { consumer: '2026-10-13', default: '2028-10-10' },
    source: 'E windows.md 10-22h2 (eoes 2028-10-10); R §4.1 consumer ESU 2026-10-13',
  },
  'w11-21h2': { eol: { consumer: '2023-10-10', default: '2024-10-08' }, source: 'E windows.md 11-21h2-w/-e' },
  'w11-22h2': { eol: { consumer: '2024-10-08', default: '2025-10-14' }, source: 'E windows.md 11-22h2-w/-e' },
  'w11-23h2': { eol: { consumer: '2025-11-11', default: '2026-11-10' }, source: 'E windows.md 11-23h2-w/-e' },
  'w11-24h2': {
    eol: { consumer: '2026-10-13', default: '2027-10-12', ltsc: '2029-10-09', iot_ltsc: '2034-10-10' },
    source: 'E windows.md 11-24h2-w/-e/-e-lts/-iot-lts; R §4.2',
  },
  'w11-25h2': { eol: { consumer: '2027-10-12', default: '2028-10-10' }, source: 'E windows.md 11-25h2-w/-e' },
  'w11-26h1': { eol: { consumer: '2028-03-14', default: '2029-03-13' }, source: 'E windows.md 11-26h1-w/-e' },
  'w7-sp1': {
    eol: { default: '2020-01-14' },
    esu: { default: '2023-01-10' },
    source: 'E windows.md 7-sp1; R §4.4 (ESU year 3 to 2023-01-10; E has no eoes for Windows 7)',
  },
  w81: { eol: { default: '2023-01-10' }, source: 'E windows.md 8.1; R §4.4 (no ESU)' },
  // 2008 / 2008 R2: standard ESU year 3 ended 2023-01-10 (E eoes). Azure year 4 (2024-01-09) and Premium
  // Assurance (2026-01-13) extended it for some customers (R §4.3); esu_enrolled carries no programme, so the
  // standard end is used and map_note says so.
  'ws-2008': {
    eol: { default: '2020-01-14' },
    esu: { default: '2023-01-10' },
    source: 'E windows-server.md 2008-sp2 (eoes 2023-01-10); R §4.3',
  },
  'ws-2008r2': {
    eol: { default: '2020-01-14' },
    esu: { default: '2023-01-10' },
    source: 'E windows-server.md 2008-r2-sp1 (eoes 2023-01-10); R §4.3',
  },
  'ws-2012': {
    eol: { default: '2023-10-10' },
    esu: { default: '2026-10-13' },
    source: 'E windows-server.md 2012 (eoes 2026-10-13); R §4.3',
  },
  'ws-2012r2': {
    eol: { default: '2023-10-10' },
    esu: { default: '2026-10-13' },
    source: 'E windows-server.md 2012-r2 (eoes 2026-10-13); R §4.3',
  },
  'ws-2016': {
    eol: { default: '2027-01-12' },
    esu: { default: '2030-01-12' },
    source: 'E windows-server.md 2016 (eol 2027-01-12, eoes 2030-01-12); R §4.3',
  },
  'ws-1709': { eol: { default: '2019-04-09' }, source: 'E windows-server.md 1709-sac' },
  'ws-1803': { eol: { default: '2019-11-12' }, source: 'E windows-server.md 1803-sac' },
  'ws-2019': { eol: { default: '2029-01-09' }, source: 'E windows-server.md 2019; R §4.3' },
  'ws-1903': { eol: { default: '2020-12-08' }, source: 'E windows-server.md 1903-sac' },
  'ws-1909': { eol: { default: '2021-05-11' }, source: 'E windows-server.md 1909-sac' },
  'ws-2004': { eol: { default: '2021-12-14' }, source: 'E windows-server.md 2004-sac' },
  'ws-20h2': { eol: { default: '2022-08-09' }, source: 'E windows-server.md 20h2-sac' },
  'ws-2022': { eol: { default: '2031-10-14' }, source: 'E windows-server.md 2022; R §4.3' },
  // R §4.3 calls Server 23H2's end uncertain (Annual Channel, ~2025-10-24); E gives 2026-05-12 and MSRC
  // published 25398 fixes through May 2026, which agrees with E.
  'ws-23h2': { eol: { default: '2026-05-12' }, source: 'E windows-server.md 23h2-ac; R §4.3 (uncertain)' },
  'ws-2025': { eol: { default: '2034-11-14' }, source: 'E windows-server.md 2025; R §4.3 (DataForGeeks scrape)' },
};

/** EditionID → lifecycle class (windows-engine.md §3.1 edition list). Null when the edition is unknown. */
export function editionClass(editionId: string | null | undefined): EditionClass | null {
  if (!editionId) return null;
  const e = editionId.trim();
  if (/^Server/i.test(e)) return 'server';
  if (/^IoTEnterpriseS/i.test(e)) return 'iot_ltsc';
  if (/^EnterpriseS/i.test(e)) return 'ltsc';
  if (/^(Enterprise|Education|IoTEnterprise)/i.test(e)) return 'enterprise';
  if (/^(Core|Professional|Cloud|Home)/i.test(e)) return 'consumer';
  return null;
}

function pick(
  table: Partial<Record<EditionClass, string>> & { default?: string },
  cls: EditionClass | null,
): string | null {
  if (cls && table[cls]) return table[cls] ?? null;
  if (cls === null) {
    // Unknown edition: only the latest end of any edition is certain to have passed; map_note says so.
    const all = Object.values(table).filter((x): x is string => typeof x === 'string');
    return all.length ? all.sort()[all.length - 1] : null;
  }
  return table.default ?? null;
}

export interface LifecycleState {
  /** End of security support for this edition. */
  eol: string;
  /** End of ESU for this edition, when an ESU programme exists. */
  esuEnd: string | null;
  endOfLife: boolean;
  /** True when the host is past the base end but covered by ESU (enrolled and within the ESU period). */
  inEsu: boolean;
  source: string;
  note: string;
}

/** Lifecycle of a product line for an edition on `today` (YYYY-MM-DD), with or without ESU enrolment. */
export function lifecycleState(
  key: string,
  editionId: string | null,
  esuEnrolled: boolean | null,
  today: string,
): LifecycleState | null {
  const row = LIFECYCLE[key];
  if (!row) return null;
  const cls = editionClass(editionId);
  const eol = pick(row.eol, cls) ?? row.eol.default;
  const esuEnd = row.esu ? pick(row.esu, cls) : null;
  const pastBase = today > eol;
  const inEsu = pastBase && esuEnrolled === true && esuEnd !== null && today <= esuEnd;
  const endOfLife = pastBase && !inEsu;
  let note = `support end ${eol}`;
  if (esuEnd) note += `; ESU end ${esuEnd}`;
  if (cls === null) note += '; edition unknown, the latest end of any edition used';
  if (pastBase && esuEnrolled === true && esuEnd === null)
    note += '; no ESU programme for this version/edition, enrolment does not extend support';
  note += `; evaluated at ${today}`;
  return { eol, esuEnd, endOfLife, inEsu, source: row.source, note };
}
