// Convert an MSRC CVRF XML document into the JSON form the MSRC API serves with `Accept: application/json`.
// No real JSON document exists in shared/data, so the JSON test fixture is made with this tool from a real
// XML document, following the documented JSON layout and enum numbers (shared/docs/windows-engine.md §1.5:
// strings wrapped as {"Value": …}, XML Type strings → integers). It works on a generic element tree and
// does not use the service's own CVRF reader, so the reader's XML and JSON paths are checked independently.
//
// Usage: npx tsx tools/cvrf-xml-to-json.ts IN.xml[.gz] OUT.json[.gz]
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { scanXml } from '../src/ingest/xml-scan.ts';

interface El {
  name: string;
  attrs: Record<string, string>;
  children: El[];
  text: string;
}

function tree(xml: string): El {
  const root: El = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: El[] = [root];
  scanXml(xml, {
    wantAttrs: () => true,
    open(name, attrs) {
      const el: El = { name, attrs: attrs ?? {}, children: [], text: '' };
      stack[stack.length - 1].children.push(el);
      stack.push(el);
    },
    text(v) {
      stack[stack.length - 1].text += v;
    },
    close() {
      stack.pop();
    },
  });
  return root.children[0];
}

const THREAT = { Impact: 0, 'Exploit Status': 1, 'Target Set': 2, Severity: 3 } as Record<string, number>;
// "Release Notes" = 6 is not verified by any source (§1.5); the reader keys on 2 (Vendor Fix) only.
const REMEDIATION = {
  Workaround: 0,
  Mitigation: 1,
  'Vendor Fix': 2,
  'None Available': 3,
  'Will Not Fix': 4,
  'Known Issue': 5,
  'Release Notes': 6,
} as Record<string, number>;
const STATUS = {
  'First Affected': 0,
  'First Fixed': 1,
  Fixed: 2,
  'Known Affected': 3,
  'Known Not Affected': 4,
  'Last Affected': 5,
  Recommended: 6,
} as Record<string, number>;
const NOTE = {
  General: 0,
  Details: 1,
  Description: 2,
  Summary: 3,
  FAQ: 4,
  'Legal Disclaimer': 5,
  Other: 6,
  Tag: 7,
  CNA: 8,
} as Record<string, number>;
const BRANCH = { Vendor: 0, 'Product Family': 1, 'Product Name': 2 } as Record<string, number>;
const DOC_STATUS = { Draft: 0, Interim: 1, Final: 2 } as Record<string, number>;

const kids = (e: El | undefined, name: string) => (e ? e.children.filter((c) => c.name === name) : []);
const kid = (e: El | undefined, name: string) => kids(e, name)[0];
const V = (e: El | undefined) => (e ? { Value: e.text } : undefined);
const T = (e: El | undefined) => (e ? e.text : undefined);
const typed = (table: Record<string, number>, t: string | undefined) => (t !== undefined && t in table ? table[t] : t);

function note(n: El) {
  return {
    Title: n.attrs.Title,
    Audience: n.attrs.Audience,
    Type: typed(NOTE, n.attrs.Type),
    Ordinal: n.attrs.Ordinal,
    Value: n.text,
  };
}

function branch(b: El): unknown {
  const items: unknown[] = [];
  for (const c of b.children) {
    if (c.name === 'Branch') items.push(branch(c));
    else if (c.name === 'FullProductName') items.push({ ProductID: c.attrs.ProductID, Value: c.text });
  }
  return { Items: items, Type: typed(BRANCH, b.attrs.Type), Name: b.attrs.Name };
}

function revision(r: El) {
  return { Number: T(kid(r, 'Number')), Date: T(kid(r, 'Date')), Description: V(kid(r, 'Description')) };
}

function vulnerability(v: El) {
  const out: Record<string, unknown> = {
    Title: V(kid(v, 'Title')),
    Notes: kids(kid(v, 'Notes'), 'Note').map(note),
    DiscoveryDateSpecified: false,
    ReleaseDateSpecified: false,
    CVE: T(kid(v, 'CVE')),
    ProductStatuses: kids(kid(v, 'ProductStatuses'), 'Status').map((s) => ({
      ProductID: kids(s, 'ProductID').map((p) => p.text),
      Type: typed(STATUS, s.attrs.Type),
    })),
    Threats: kids(kid(v, 'Threats'), 'Threat').map((t) => {
      const o: Record<string, unknown> = {
        Description: V(kid(t, 'Description')) ?? { Value: '' },
        ProductID: kids(t, 'ProductID').map((p) => p.text),
        Type: typed(THREAT, t.attrs.Type),
        DateSpecified: false,
      };
      return o;
    }),
    CVSSScoreSets: kids(kid(v, 'CVSSScoreSets'), 'ScoreSet').map((s) => ({
      BaseScore: Number(T(kid(s, 'BaseScore'))),
      TemporalScore: Number(T(kid(s, 'TemporalScore'))),
      Vector: T(kid(s, 'Vector')),
      ProductID: kids(s, 'ProductID').map((p) => p.text),
    })),
    Remediations: kids(kid(v, 'Remediations'), 'Remediation').map((r) => {
      const o: Record<string, unknown> = {
        Description: V(kid(r, 'Description')),
        URL: T(kid(r, 'URL')),
        Supercedence: T(kid(r, 'Supercedence')),
        ProductID: kids(r, 'ProductID').map((p) => p.text),
        Type: typed(REMEDIATION, r.attrs.Type),
        DateSpecified: false,
        AffectedFiles: [],
        RestartRequired: V(kid(r, 'RestartRequired')),
        SubType: T(kid(r, 'SubType')),
        FixedBuild: T(kid(r, 'FixedBuild')),
      };
      for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
      return o;
    }),
    Acknowledgments: kids(kid(v, 'Acknowledgments'), 'Acknowledgment').map((a) => ({
      Name: kids(a, 'Name').map((n) => ({ Value: n.text })),
      URL: kids(a, 'URL').map((u) => u.text),
    })),
    RevisionHistory: kids(kid(v, 'RevisionHistory'), 'Revision').map(revision),
  };
  const cwes = kids(v, 'CWE');
  if (cwes.length) out.CWE = cwes.map((c) => ({ ID: c.attrs.ID, Value: c.text }));
  return out;
}

export function cvrfXmlToJson(xml: string): unknown {
  const d = tree(xml);
  const tr = kid(d, 'DocumentTracking');
  const pub = kid(d, 'DocumentPublisher');
  const pt = kid(d, 'ProductTree');
  return {
    DocumentTitle: V(kid(d, 'DocumentTitle')),
    DocumentType: V(kid(d, 'DocumentType')),
    DocumentPublisher: pub
      ? { ContactDetails: V(kid(pub, 'ContactDetails')), IssuingAuthority: V(kid(pub, 'IssuingAuthority')), Type: 0 }
      : undefined,
    DocumentTracking: {
      Identification: {
        ID: V(kid(kid(tr, 'Identification'), 'ID')),
        Alias: V(kid(kid(tr, 'Identification'), 'Alias')),
      },
      Status: typed(DOC_STATUS, T(kid(tr, 'Status'))),
      Version: T(kid(tr, 'Version')),
      RevisionHistory: kids(kid(tr, 'RevisionHistory'), 'Revision').map(revision),
      InitialReleaseDate: T(kid(tr, 'InitialReleaseDate')),
      CurrentReleaseDate: T(kid(tr, 'CurrentReleaseDate')),
    },
    DocumentNotes: kids(kid(d, 'DocumentNotes'), 'Note').map(note),
    ProductTree: {
      Branch: kids(pt, 'Branch').map(branch),
      FullProductName: kids(pt, 'FullProductName').map((f) => ({ ProductID: f.attrs.ProductID, Value: f.text })),
    },
    Vulnerability: kids(d, 'Vulnerability').map(vulnerability),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: tsx tools/cvrf-xml-to-json.ts IN.xml[.gz] OUT.json[.gz]');
    process.exit(2);
  }
  const raw = readFileSync(input);
  const xml = (raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw).toString('utf8');
  const json = JSON.stringify(cvrfXmlToJson(xml));
  writeFileSync(output, output.endsWith('.gz') ? gzipSync(json) : json);
}
