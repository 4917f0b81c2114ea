// Pages go out compressed (docs/web.md "Performance"): an HTML answer of 1 KiB or more is sent with brotli (quality
// 5) or gzip (level 6), whichever the client's Accept-Encoding prefers (content-encoding.ts negotiateEncoding), in
// zlib's thread pool so the event loop keeps answering. A large environment page (hundreds of assets with their CVE
// tables) is mostly repeated markup: it shrinks about twentyfold. Other answers are left as their routes send them.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { negotiateEncoding } from './content-encoding.ts';

const br = promisify(brotliCompress);
const gz = promisify(gzip);
/** Below this, compressing saves less than a packet. */
const MIN_BYTES = 1024;

export function registerPageCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload !== 'string' || payload.length < MIN_BYTES || reply.hasHeader('content-encoding'))
      return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html')) return payload;
    reply.header('Vary', 'Accept-Encoding');
    const enc = negotiateEncoding(req.headers['accept-encoding']);
    if (enc === null) return payload;
    reply.header('Content-Encoding', enc).removeHeader('content-length');
    return enc === 'br'
      ? br(payload, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
        })
      : gz(payload, { level: 6 });
  });
}
