// A loopback HTTP server that replays the real feed files in test/fixtures/sync/ (see PROVENANCE.md) in the
// response shapes of the public endpoints: the NVD CVE API 2.0 (filtering by lastModified, paging by
// startIndex/resultsPerPage, 120-day limit), the KEV JSON, the official gzip EPSS CSV, MITRE's CWE zip, the
// CAPEC STIX bundle and the CISA CSAF ROLIE feed with its documents. Conditional GETs are answered like the
// real servers (ETag / Last-Modified → 304). Faults are injected per request with `inject()`.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { FeedUrls } from '../../src/config.ts';

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'sync');
const CSAF_ORIGIN = 'https://raw.githubusercontent.com/cisagov/CSAF/develop/';

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
}

interface Fault {
  match: (r: RecordedRequest) => boolean;
  /** Never answer (the connection stays open until the client gives up or dies). */
  hang: boolean;
  /** Answer as usual, headers and Content-Length included, but reset the connection halfway through the body. */
  cut: boolean;
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  times: number;
}

type Json = any;

interface Served {
  body: Buffer;
  type: string;
  etag?: string;
  lastModified?: string;
}

function served(body: Buffer, type: string, validators: { etag?: boolean; lastModified?: string }): Served {
  return {
    body,
    type,
    etag: validators.etag ? `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` : undefined,
    lastModified: validators.lastModified,
  };
}

/** NVD timestamps have no zone and mean UTC. */
function nvdTime(s: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(s) ? s : `${s}Z`);
}

export function loadNvdRecords(): Json[] {
  const dir = path.join(FIX, 'nvd', 'records');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')));
}

export class ReplayServer {
  readonly requests: RecordedRequest[] = [];
  nvdRecords: Json[] = loadNvdRecords();
  /** NVD's clock, for the pages' `timestamp` (default: this machine's). */
  nvdNow: () => Date = () => new Date();
  private faults: Fault[] = [];
  private server!: http.Server;
  port = 0;
  private kev: Served;
  private epss: Served;
  private cwe: Served;
  private capec: Served;
  private csafFeed: Json = JSON.parse(readFileSync(path.join(FIX, 'csaf', 'cisa-csaf-ot-feed-tlp-white.json'), 'utf8'));
  private csafDocs = new Map<string, Buffer>();

  /** `csaf`: serve another ROLIE feed and its documents (by file name) instead of the 6-advisory fixture (bench/). */
  constructor(opts: { csaf?: { feed: Json; docs: Map<string, Buffer> } } = {}) {
    if (opts.csaf) {
      this.csafFeed = opts.csaf.feed;
      this.csafDocs = opts.csaf.docs;
    }
    this.kev = served(
      gunzipSync(readFileSync(path.join(FIX, 'kev', 'known_exploited_vulnerabilities-2026-08-07.json.gz'))),
      'application/json',
      { etag: true, lastModified: 'Fri, 07 Aug 2026 16:46:00 GMT' },
    );
    this.epss = served(
      gzipSync(readFileSync(path.join(FIX, 'epss', 'epss_scores-2026-09-29.head.csv'))),
      'application/gzip',
      { etag: true },
    );
    this.cwe = served(readFileSync(path.join(FIX, 'cwe', 'cwec_latest.xml.zip')), 'application/zip', {
      lastModified: 'Tue, 16 Jul 2024 12:00:00 GMT',
    });
    // raw.githubusercontent.com answers with an ETag; this copy has none, so the client's content-hash path is exercised.
    this.capec = served(readFileSync(path.join(FIX, 'capec', 'stix-capec.subset.json')), 'application/json', {});
    if (!opts.csaf)
      for (const f of readdirSync(path.join(FIX, 'csaf', 'docs')))
        this.csafDocs.set(f, readFileSync(path.join(FIX, 'csaf', 'docs', f)));
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get urls(): FeedUrls {
    return {
      nvd: `${this.base}/rest/json/cves/2.0`,
      kev: `${this.base}/sites/default/files/feeds/known_exploited_vulnerabilities.json`,
      epss: `${this.base}/epss_scores-current.csv.gz`,
      cwe: `${this.base}/data/xml/cwec_latest.xml.zip`,
      capec: `${this.base}/mitre/cti/master/capec/2.1/stix-capec.json`,
      csaf: `${this.base}/csaf/csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json`,
      // Not served here: the cvelistV5 releases have their own replay test (test/integration/sync-cve5.test.ts).
      cve5: `${this.base}/repos/CVEProject/cvelistV5/releases`,
      // Not served here: the MSRC source has its own replay test (test/integration/windows-sync.test.ts).
      msrc: `${this.base}/cvrf/v3.0/updates`,
    };
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The next `times` requests matching `match` get this response instead of the real one. */
  inject(
    match: (r: RecordedRequest) => boolean,
    status: number,
    opts: {
      headers?: Record<string, string>;
      body?: string | Buffer;
      times?: number;
      hang?: boolean;
      cut?: boolean;
    } = {},
  ): void {
    this.faults.push({
      match,
      status,
      headers: opts.headers ?? {},
      body: opts.body ?? '',
      times: opts.times ?? 1,
      hang: opts.hang ?? false,
      cut: opts.cut ?? false,
    });
  }

  /** The next `times` answers to requests matching `match` break off halfway through their body (a reset). */
  cutBody(match: (r: RecordedRequest) => boolean, times = 1): void {
    this.inject(match, 200, { times, cut: true });
  }

  /** Serve the older KEV catalog (2025-08-25, 1,404 entries) or the newer one. */
  useKev(version: '2025-08-25' | '2026-08-07'): void {
    this.kev = served(
      gunzipSync(readFileSync(path.join(FIX, 'kev', `known_exploited_vulnerabilities-${version}.json.gz`))),
      'application/json',
      {
        etag: true,
        lastModified: version === '2025-08-25' ? 'Mon, 25 Aug 2025 15:00:00 GMT' : 'Fri, 07 Aug 2026 16:46:00 GMT',
      },
    );
  }

  /** NVD modified a record: its lastModified moves (the record is otherwise the real one). */
  touchNvd(cveId: string, lastModified: string): void {
    const r = this.nvdRecords.find((x) => x.id === cveId);
    if (!r) throw new Error(`no fixture ${cveId}`);
    r.lastModified = lastModified;
  }

  /** CISA revised an advisory: the feed entry's `updated` changes. */
  touchCsaf(id: string, updated: string): void {
    const e = this.csafFeed.feed.entry.find((x: Json) => x.id === id);
    if (!e) throw new Error(`no feed entry ${id}`);
    e.updated = updated;
  }

  requestsTo(prefix: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(prefix));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const u = new URL(req.url ?? '/', this.base);
    const rec: RecordedRequest = { path: u.pathname, query: Object.fromEntries(u.searchParams), headers: req.headers };
    this.requests.push(rec);
    const fault = this.faults.find((f) => f.times > 0 && f.match(rec));
    if (fault) {
      fault.times--;
      if (fault.hang) return;
      if (fault.cut) {
        // The real answer, cut: half of its body is sent, then the connection is reset.
        res.end = ((chunk?: unknown) => {
          const body =
            typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.alloc(0);
          res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.socket?.destroy(), 5));
          return res;
        }) as typeof res.end;
        return this.route(req, u, res);
      }
      res.writeHead(fault.status, fault.headers);
      res.end(fault.body);
      return;
    }
    this.route(req, u, res);
  }

  private route(req: http.IncomingMessage, u: URL, res: http.ServerResponse): void {
    const p = u.pathname;
    if (p === '/rest/json/cves/2.0') return this.nvd(u, res);
    if (p === '/sites/default/files/feeds/known_exploited_vulnerabilities.json') return this.file(req, res, this.kev);
    if (p === '/epss_scores-current.csv.gz') return this.file(req, res, this.epss);
    if (p === '/data/xml/cwec_latest.xml.zip') return this.file(req, res, this.cwe);
    if (p === '/mitre/cti/master/capec/2.1/stix-capec.json') return this.file(req, res, this.capec);
    if (p === '/csaf/csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json') {
      const text = JSON.stringify(this.csafFeed, null, 2).split(CSAF_ORIGIN).join(`${this.base}/csaf/`);
      return this.file(req, res, served(Buffer.from(text), 'application/json', { etag: true }));
    }
    const doc = /^\/csaf\/csaf_files\/OT\/white\/\d{4}\/([a-z0-9-]+\.json)$/.exec(p);
    if (doc && this.csafDocs.has(doc[1]))
      return this.file(req, res, served(this.csafDocs.get(doc[1])!, 'application/json', { etag: true }));
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  }

  private file(req: http.IncomingMessage, res: http.ServerResponse, f: Served): void {
    const headers: Record<string, string> = { 'content-type': f.type };
    if (f.etag) headers.etag = f.etag;
    if (f.lastModified) headers['last-modified'] = f.lastModified;
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    if ((f.etag && inm === f.etag) || (!inm && f.lastModified && ims === f.lastModified)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers['content-length'] = String(f.body.length);
    res.writeHead(200, headers);
    res.end(f.body);
  }

  private nvd(u: URL, res: http.ServerResponse): void {
    const q = u.searchParams;
    const fail = (msg: string) => {
      // The API answers invalid parameters with 404 and a `message` header.
      res.writeHead(404, { message: msg });
      res.end();
    };
    const perPage = q.has('resultsPerPage') ? Number(q.get('resultsPerPage')) : 2000;
    const start = q.has('startIndex') ? Number(q.get('startIndex')) : 0;
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 2000 || !Number.isInteger(start) || start < 0)
      return fail('Invalid paging');
    const s = q.get('lastModStartDate');
    const e = q.get('lastModEndDate');
    if ((s === null) !== (e === null)) return fail('Both lastModStartDate and lastModEndDate are required');
    let records = [...this.nvdRecords].sort((a, b) => (a.id < b.id ? -1 : 1));
    if (s !== null && e !== null) {
      const from = nvdTime(s);
      const to = nvdTime(e);
      if (Number.isNaN(from) || Number.isNaN(to) || to < from) return fail('Invalid date');
      if (to - from > 120 * 24 * 3600 * 1000) return fail('The date range must not exceed 120 days');
      records = records.filter((r) => nvdTime(r.lastModified) >= from && nvdTime(r.lastModified) <= to);
    }
    const slice = records.slice(start, start + perPage);
    const body = {
      resultsPerPage: slice.length,
      startIndex: start,
      totalResults: records.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: this.nvdNow().toISOString().replace(/Z$/, ''),
      vulnerabilities: slice.map((cve) => ({ cve })),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
