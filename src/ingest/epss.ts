// FIRST EPSS scores in both layouts found in the wild:
//  - official daily bulk CSV: line 1 `#model_version:<v>,score_date:<ISO>`, line 2 `cve,epss,percentile`, rows;
//  - the plain `cve;epss;percentile` layout (no header, no comment), as served row by row from the EPSS API.
// Streamed line by line: the full file has ~360k rows.
import { readLines } from './io.ts';
import type { EpssRecord, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';
import { isCveId } from '../domain/cve-id.ts';

const HEADER_RE = /^#model_version:([^,]*),score_date:(.+)$/;
const DECIMAL = /^\s*(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

export function parseEpssRow(line: string, sep: ',' | ';'): EpssRecord | null {
  const parts = line.split(sep);
  if (parts.length < 3) return null;
  const cve = parts[0].trim();
  if (!isCveId(cve)) return null;
  // A decimal number as FIRST writes them ("0.00043", "4.3e-04"): Number() also read "0x1" as 1 and "" as 0.
  if (!DECIMAL.test(parts[1]) || !DECIMAL.test(parts[2])) return null;
  const epss = Number(parts[1]);
  const percentile = Number(parts[2]);
  if (
    !Number.isFinite(epss) ||
    !Number.isFinite(percentile) ||
    epss < 0 ||
    epss > 1 ||
    percentile < 0 ||
    percentile > 1
  ) {
    return null;
  }
  return { cve_id: cve, epss, percentile };
}

export async function* readEpss(path: string): AsyncGenerator<IngestItem> {
  let sep: ',' | ';' | null = null;
  let lineNo = 0;
  let bad = 0;
  for await (const raw of readLines(path)) {
    lineNo++;
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = HEADER_RE.exec(line);
      // A score_date that is no date is no date (it was stored as given).
      if (m)
        yield {
          kind: 'meta',
          meta: {
            feed: 'epss-csv',
            version: m[1] || null,
            date: Number.isNaN(Date.parse(m[2].trim())) ? null : m[2].trim(),
            declared_count: null,
          },
        };
      continue;
    }
    if (sep === null) {
      if (/^cve,epss,percentile$/i.test(line)) {
        sep = ',';
        continue;
      }
      if (/^CVE-[^;]+;/.test(line)) {
        sep = ';';
        yield { kind: 'meta', meta: { feed: 'epss-ssv', version: null, date: null, declared_count: null } };
      } else if (/^CVE-[^,]+,/.test(line)) sep = ',';
      else throw new FeedFormatError(`${path}:${lineNo}: not an EPSS row or header`);
    }
    const rec = parseEpssRow(line, sep);
    if (rec) yield { kind: 'epss', record: rec };
    else if (++bad > 100) throw new FeedFormatError(`${path}:${lineNo}: too many malformed EPSS rows`);
  }
}
