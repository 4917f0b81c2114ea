// CISA Known Exploited Vulnerabilities catalog (JSON as published): {title, catalogVersion, dateReleased,
// count, vulnerabilities[{cveID, vendorProject, product, vulnerabilityName, dateAdded, shortDescription,
// requiredAction, dueDate, knownRansomwareCampaignUse, notes, cwes}]}.
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { readText } from './io.ts';
import { arr, Loose, parseFeedJson, str } from './json.ts';
import type { CveSourceRecord, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';
import { isCveId } from '../domain/cve-id.ts';
import { errorMessage } from '../lib/errors.ts';

/** A catalog: its version and its entries, each entry checked on its own. */
const KevCatalog = Compile(
  Type.Object({
    catalogVersion: Type.String(),
    vulnerabilities: Type.Array(Type.Unknown()),
    dateReleased: Loose,
    count: Loose,
  }),
);

/** An entry: its CVE id as text, the other fields read as text where they are text. */
const KevEntry = Compile(
  Type.Object({
    cveID: Type.String(),
    dateAdded: Loose,
    vendorProject: Loose,
    product: Loose,
    vulnerabilityName: Loose,
    shortDescription: Loose,
    requiredAction: Loose,
    dueDate: Loose,
    knownRansomwareCampaignUse: Loose,
    notes: Loose,
    cwes: Loose,
  }),
);

function cwesOf(list: unknown): number[] {
  const out = new Set<number>();
  for (const c of arr(list)) {
    const m = /^CWE-(\d+)$/.exec(String(c).trim());
    if (m) out.add(Number(m[1]));
  }
  return [...out];
}

export function kevRecord(v: unknown): CveSourceRecord {
  if (!KevEntry.Check(v) || !isCveId(v.cveID)) {
    throw new FeedFormatError('KEV entry without a valid cveID');
  }
  const dateAdded = str(v.dateAdded);
  // A date PostgreSQL reads (a KEV entry's dateAdded is a YYYY-MM-DD date; "yesterday" stopped the import there).
  if (!/^\d{4}-\d{2}-\d{2}$/.test(dateAdded) || Number.isNaN(Date.parse(`${dateAdded}T00:00:00Z`))) {
    throw new FeedFormatError(`KEV entry ${v.cveID}: dateAdded is not a YYYY-MM-DD date`);
  }
  return {
    source: 'kev',
    source_key: '',
    cve_id: v.cveID,
    description: str(v.shortDescription).trim() || null,
    title: str(v.vulnerabilityName).trim() || null,
    published: null,
    modified: null,
    cvss: [],
    cwes: cwesOf(v.cwes),
    affected: str(v.vendorProject)
      ? [{ vendor: str(v.vendorProject), product: str(v.product) || null, origin: 'kev' }]
      : [],
    // KEV notes are free text with URLs separated by " ; "; they are not NVD references and are kept
    // only as KEV facts (spec §2.5 lists NVD references only).
    references: [],
    assigner: null,
    status: null,
    kev: {
      date_added: dateAdded,
      vendor_project: str(v.vendorProject),
      product: str(v.product),
      vulnerability_name: str(v.vulnerabilityName),
      short_description: str(v.shortDescription),
      required_action: str(v.requiredAction),
      due_date: str(v.dueDate) || null,
      known_ransomware_campaign_use: str(v.knownRansomwareCampaignUse),
      notes: str(v.notes),
    },
  };
}

export function* kevItemsFromJson(doc: unknown): Generator<IngestItem> {
  if (!KevCatalog.Check(doc)) {
    throw new FeedFormatError('not a KEV catalog (catalogVersion/vulnerabilities missing)');
  }
  // Every entry is checked before the first item: a catalog with a bad entry is refused whole, naming the entry,
  // before anything of it is stored (failing later would leave its version taken, with no entry named).
  const records = doc.vulnerabilities.map((v, i) => {
    try {
      return kevRecord(v);
    } catch (e) {
      throw new FeedFormatError(`vulnerabilities[${i}]: ${errorMessage(e)}`);
    }
  });
  yield {
    kind: 'meta',
    meta: {
      feed: 'kev',
      version: doc.catalogVersion,
      date: typeof doc.dateReleased === 'string' ? doc.dateReleased : null,
      declared_count: typeof doc.count === 'number' ? doc.count : null,
    },
  };
  for (const record of records) yield { kind: 'cve', record };
}

export async function* readKev(path: string): AsyncGenerator<IngestItem> {
  let doc: unknown;
  try {
    doc = parseFeedJson(await readText(path));
  } catch (err) {
    throw new FeedFormatError(`${path}: not valid KEV JSON (${errorMessage(err)})`);
  }
  try {
    yield* kevItemsFromJson(doc);
  } catch (e) {
    if (e instanceof FeedFormatError) throw new FeedFormatError(`${path}: ${e.message}`);
    throw e;
  }
}
