// The web app's static files (ADR 0094): our stylesheet and htmx (npm `htmx.org`), read once at start and served
// from /static/ under names that carry a hash of their content, so they are cached for good (immutable) and a
// changed file is a new name. Nothing is loaded from another origin.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';

export interface StaticAsset {
  /** The hashed file name under /static/ (`app.3f2a9c1d0b7e.css`). */
  name: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
}

function asset(base: string, ext: string, type: string, body: Buffer): StaticAsset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${base}.${hash}.${ext}`, type, body, gzip: gzipSync(body, { level: 9 }) };
}

const require = createRequire(import.meta.url);

export const STYLESHEET = asset(
  'app',
  'css',
  'text/css; charset=utf-8',
  readFileSync(new URL('./static/app.css', import.meta.url)),
);
export const HTMX = asset(
  'htmx',
  'js',
  'text/javascript; charset=utf-8',
  readFileSync(require.resolve('htmx.org/dist/htmx.min.js')),
);

/** The files by their hashed name. */
export const STATIC_FILES: ReadonlyMap<string, StaticAsset> = new Map([STYLESHEET, HTMX].map((a) => [a.name, a]));

/** The page CSP: scripts and styles from this origin only, nothing inline, no other origin, forms to this origin. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
