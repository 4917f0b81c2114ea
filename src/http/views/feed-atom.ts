// Atom 1.0 documents of the feeds (docs/feeds.md), written with the `feed` library. One entry per CVE: its newest
// changes (up to five, newest first), a link to its web page; the entry id names the newest change, so a reader
// shows the CVE again when it changes again. Text that XML cannot carry (control characters, lone surrogates) is
// dropped; titles and summaries are HTML-escaped (the library marks them type="html"), so a feed reader shows
// them as text.
import { Feed } from 'feed';
import type { FeedDocument } from '../../services/feeds.ts';

const NOT_XML =
  // eslint-disable-next-line no-control-regex -- exactly the code points XML 1.0 forbids
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export const xmlText = (s: string): string => s.replace(NOT_XML, '');
/** The library marks titles and summaries `type="html"`: our plain text is escaped so readers show it as text. */
const html = (s: string): string =>
  xmlText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderAtom(o: FeedDocument): string {
  const updated = new Date(o.updated);
  const feed = new Feed({
    id: o.id,
    title: xmlText(o.title),
    description: xmlText(o.subtitle),
    link: o.siteUrl,
    updated,
    generator: 'Vulnintel',
    feedLinks: { atom: o.selfUrl },
    copyright: 'CVE data: see the sources of each CVE page',
  });
  for (const e of o.entries) {
    const severity = e.severity
      ? ` [${e.severity}${e.cvss_score !== null ? ` ${e.cvss_score.toFixed(1)}` : ''}${e.kev_flagged ? ', KEV' : ''}]`
      : e.kev_flagged
        ? ' [KEV]'
        : '';
    feed.addItem({
      id: `urn:vulnintel:change:${e.seq}`,
      title: html(`${e.cve_id}${severity}: ${e.changes[0] ?? 'changed'}`),
      link: `${o.publicUrl}/cve/${e.cve_id}`,
      date: new Date(e.changed_at),
      description: html(`${e.title}\n${e.changes.map((c) => `- ${c}`).join('\n')}`),
    });
  }
  return feed.atom1();
}
