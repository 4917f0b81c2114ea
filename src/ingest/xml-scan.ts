// A minimal, allocation-light XML event scanner for MSRC CVRF documents.
// Why not a general XML library: the 190 CVRF documents are ~365 MB of XML, and a DOM-building parser
// takes tens of seconds and gigabytes for them; this scanner walks the string once with indexOf and
// decodes text only where it is asked for. It understands elements, attributes, text, CDATA, comments,
// processing instructions and the five XML entities plus numeric references - everything CVRF uses.
// It is not a validating parser: it trusts the document to be well formed (MSRC serves it that way).

export interface XmlHandler {
  /** Element opened. `name` has its namespace prefix removed. `attrs` is only built when `wantAttrs` says so. */
  open(name: string, attrs: Record<string, string> | null): void;
  /** Text inside the current element, entity-decoded. Whitespace-only runs are skipped. */
  text(value: string): void;
  close(name: string): void;
  /** Return true when the handler needs the attributes of this element (saves work otherwise). */
  wantAttrs(name: string): boolean;
}

const ENTITY_RE = /&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g;

export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(ENTITY_RE, (_m, e: string) => {
    switch (e) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        return codePointText(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    }
  });
}

/**
 * The character of a numeric reference; U+FFFD for one XML does not allow (`&#0;`, a surrogate, beyond U+10FFFF):
 * `&#0;` stopped a whole import at the database (no text column holds U+0000), and `&#x110000;` threw "Invalid code
 * point" naming no file.
 */
export function codePointText(cp: number): string {
  return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : '\uFFFD';
}

function localName(qname: string): string {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
}

const ATTR_RE = /([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/g;

function parseAttrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  ATTR_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ATTR_RE.exec(s)) !== null) {
    out[localName(m[1])] = decodeEntities(m[3] ?? m[4] ?? '');
  }
  return out;
}

function isBlank(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false;
  }
  return true;
}

/** Walk `xml` once and report events to `h`. Throws on a truncated document. */
export function scanXml(xml: string, h: XmlHandler): void {
  let i = 0;
  // Elements open: a document that ends with some still open was cut (a partial download), not complete.
  let depth = 0;
  const n = xml.length;
  if (xml.charCodeAt(0) === 0xfeff) i = 1;
  while (i < n) {
    const lt = xml.indexOf('<', i);
    if (lt < 0) break;
    if (lt > i && !isBlank(xml, i, lt)) h.text(decodeEntities(xml.slice(i, lt)));
    const c1 = xml.charCodeAt(lt + 1);
    if (c1 === 33 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end < 0) throw new Error('unterminated XML comment');
        i = end + 3;
      } else if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        if (end < 0) throw new Error('unterminated CDATA section');
        h.text(xml.slice(lt + 9, end));
        i = end + 3;
      } else {
        const end = xml.indexOf('>', lt);
        if (end < 0) throw new Error('unterminated XML declaration');
        i = end + 1;
      }
      continue;
    }
    if (c1 === 63 /* ? */) {
      const end = xml.indexOf('?>', lt);
      if (end < 0) throw new Error('unterminated processing instruction');
      i = end + 2;
      continue;
    }
    const gt = xml.indexOf('>', lt);
    if (gt < 0) throw new Error('truncated XML document');
    if (c1 === 47 /* / */) {
      h.close(localName(xml.slice(lt + 2, gt).trim()));
      depth--;
      i = gt + 1;
      continue;
    }
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const inner = xml.slice(lt + 1, selfClosing ? gt - 1 : gt);
    let sp = 0;
    while (sp < inner.length) {
      const c = inner.charCodeAt(sp);
      if (c === 32 || c === 10 || c === 13 || c === 9) break;
      sp++;
    }
    const name = localName(inner.slice(0, sp));
    const attrs = sp < inner.length && h.wantAttrs(name) ? parseAttrs(inner.slice(sp)) : null;
    h.open(name, attrs);
    if (selfClosing) h.close(name);
    else depth++;
    i = gt + 1;
  }
  if (depth > 0) throw new Error(`truncated XML document (${depth} element(s) not closed)`);
}
