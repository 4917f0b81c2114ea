// The correlate response, written host by host. A 200-host answer with cleared CVEs can be
// gigabytes of JSON: more than one string can hold (V8's limit is about 512 MiB). The body is produced as a
// stream of byte chunks, with backpressure (the next host is serialised only when the socket, or the compressor,
// has taken the previous chunks), optionally through streaming gzip or brotli, and it yields to the event loop
// between hosts. The bytes are exactly JSON.stringify of the V2CorrelateResponse object (schemas.ts).
//
// Serialising once: each rendered CVE object is serialised once and its JSON fragment reused by every host and
// every call that shares the object (the engine shares them between hosts of the same patch level), and hosts with
// the same facts share one CVE list, whose bytes are built once per call (up to LIST_CACHE_BYTES).
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { PublicCve } from '../../../domain/windows/view.ts';
import type { Correlation } from '../../../services/windows-correlation.ts';
import type { Encoding } from '../../content-encoding.ts';

const CVE_JSON = new WeakMap<object, string>();
/** Bytes handed to the stream at once. */
const CHUNK = 256 * 1024;
/** CVE lists kept as bytes for reuse within one call; beyond this they are rebuilt per host (memory stays bounded). */
const LIST_CACHE_BYTES = 64 * 1024 * 1024;

function cveJson(c: PublicCve): string {
  let j = CVE_JSON.get(c);
  if (j === undefined) {
    j = JSON.stringify(c);
    CVE_JSON.set(c, j);
  }
  return j;
}

// Where a host's CVE list goes in its JSON: the host object is serialised with this token in place of the list,
// which keeps the key order JSON.stringify gives the whole object, then split around it.
const CVES_MARK = `\u0001cves-${process.pid}-${Date.now().toString(36)}\u0001`;
const CVES_TOKEN = JSON.stringify(CVES_MARK);

/**
 * A JSON document whose `hosts` (the only large part) are written one by one between `head` and `tail`
 * (`tail` is called after the last host, so timings in it cover the whole response). Each host object carries
 * its CVE list in `cves`.
 */
export async function* hostsJson(
  head: string,
  hosts: readonly { cves: PublicCve[] }[],
  tail: () => string,
): AsyncGenerator<Buffer> {
  yield Buffer.from(head);
  const lists = new Map<PublicCve[], Buffer>();
  let cached = 0;
  for (let i = 0; i < hosts.length; i++) {
    const h = hosts[i];
    const [before, after] = JSON.stringify({ ...h, cves: CVES_MARK }).split(CVES_TOKEN);
    yield Buffer.from(`${i ? ',' : ''}${before}[`);
    let list = lists.get(h.cves);
    if (!list) {
      list = Buffer.from(h.cves.map(cveJson).join(','));
      if (cached + list.length <= LIST_CACHE_BYTES) {
        lists.set(h.cves, list);
        cached += list.length;
      }
    }
    for (let o = 0; o < list.length; o += CHUNK) yield list.subarray(o, o + CHUNK);
    yield Buffer.from(`]${after}`);
    await yieldToLoop();
  }
  yield Buffer.from(tail());
}

/** The correlate body (V2CorrelateResponse): `meta` is called last, so took_ms covers the whole response. */
export function correlationBody(api: object, c: Correlation, meta: () => object): AsyncGenerator<Buffer> {
  // The CVE list goes last in each host object (after cves_page when paging), as it always has.
  const hosts = c.assets.map(({ cves, ...rest }) => ({ ...rest, cves }));
  const tail = {
    rejected: c.rejected,
    software_stored: c.software_stored,
    software_rejected: c.software_rejected,
    fix_summary: c.fix_summary,
  };
  return hostsJson(
    `{"api":${JSON.stringify(api)},"data":{"assets":[`,
    hosts,
    () => `],${JSON.stringify(tail).slice(1, -1)}},"meta":${JSON.stringify(meta())}}`,
  );
}

/**
 * Compression settings, measured on 200-host responses (docs/benchmarks.md): brotli at quality 4 with a 16 MiB
 * window finds the repeated CVE lists of hosts on the same patch level (a host's list is megabytes long, beyond
 * gzip's 32 KiB window); gzip level 4 is the fallback.
 */
function compressor(enc: Encoding): zlib.BrotliCompress | zlib.Gzip {
  if (enc === 'br') {
    return zlib.createBrotliCompress({
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
        [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      },
    });
  }
  return zlib.createGzip({ level: 4 });
}

/** A readable stream of the body, compressed with `enc` when given. */
export function bodyStream(chunks: AsyncGenerator<Buffer>, enc: Encoding | null): Readable {
  const source = Readable.from(chunks, { objectMode: false, highWaterMark: CHUNK });
  if (!enc) return source;
  const z = compressor(enc);
  // pipeline destroys both sides on an error or an aborted response (no dangling generator).
  pipeline(source, z, () => {});
  return z;
}
