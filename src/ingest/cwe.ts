// MITRE CWE catalog XML (schema cwe-7): <Weakness ID Name Abstraction Structure Status> with
// <Related_Attack_Patterns><Related_Attack_Pattern CAPEC_ID/>; <Category ID Name Status>.
// A small streaming tag scanner: only start/end tags of the elements we need are looked at, so the
// 15 MB catalog is never held as a DOM.
import { openText } from './io.ts';
import { decodeEntities } from './xml-scan.ts';
import type { CweRecord, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';

const TAG_RE = /<(\/?)(Weakness_Catalog|Weakness|Category|Related_Attack_Pattern)\b([^>]*?)(\/?)>/g;
const ATTR_RE = /([A-Za-z_:][\w:.-]*)\s*=\s*"([^"]*)"/g;

/** An element's attributes, entity-decoded as the CVRF scanner decodes them (xml-scan.ts). */
export function xmlAttrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(ATTR_RE)) out[m[1]] = decodeEntities(m[2]);
  return out;
}

export async function* readCwe(path: string): AsyncGenerator<IngestItem> {
  let buf = '';
  let current: CweRecord | null = null;
  let sawCatalog = false;
  const stream = await openText(path);
  for await (const chunk of stream) {
    if (typeof chunk !== 'string') throw new TypeError(`${path}: a text stream gave bytes`);
    buf += chunk;
    TAG_RE.lastIndex = 0;
    let consumed = 0;
    let m: RegExpExecArray | null;
    const pending: IngestItem[] = [];
    while ((m = TAG_RE.exec(buf))) {
      consumed = TAG_RE.lastIndex;
      const [, close, name, attrText, selfClose] = m;
      if (name === 'Weakness_Catalog') {
        if (!close) {
          sawCatalog = true;
          const a = xmlAttrs(attrText);
          pending.push({
            kind: 'meta',
            meta: { feed: 'cwe-xml', version: a.Version ?? null, date: a.Date ?? null, declared_count: null },
          });
        }
        continue;
      }
      if (name === 'Related_Attack_Pattern') {
        const id = Number(xmlAttrs(attrText).CAPEC_ID);
        if (current && Number.isInteger(id) && !current.capec_ids.includes(id)) current.capec_ids.push(id);
        continue;
      }
      if (close) {
        if (current && (name === 'Weakness' ? current.kind === 'weakness' : current.kind === 'category')) {
          pending.push({ kind: 'cwe', record: current });
          current = null;
        }
        continue;
      }
      const a = xmlAttrs(attrText);
      const id = Number(a.ID);
      if (!Number.isInteger(id) || !a.Name) continue;
      const rec: CweRecord = {
        id,
        name: a.Name,
        abstraction: name === 'Category' ? 'Category' : (a.Abstraction ?? ''),
        kind: name === 'Category' ? 'category' : 'weakness',
        status: a.Status ?? null,
        capec_ids: [],
      };
      if (selfClose) pending.push({ kind: 'cwe', record: rec });
      else current = rec;
    }
    // Keep the unscanned tail (a tag may be split across chunks).
    const lastLt = buf.lastIndexOf('<');
    buf = buf.slice(Math.max(consumed, lastLt >= consumed ? lastLt : buf.length));
    for (const item of pending) yield item;
  }
  if (!sawCatalog) throw new FeedFormatError(`${path}: no <Weakness_Catalog> element`);
}
