// Secrets helpers. API keys follow docs/reliability.md decision 7: `vi_live_` + 32 random bytes in base62 +
// a CRC32 checksum suffix, stored only as SHA-256.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(buf: Buffer): string {
  let n = BigInt('0x' + (buf.length ? buf.toString('hex') : '0'));
  let out = '';
  while (n > 0n) {
    out = B62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || '0';
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32(s: string): number {
  let c = 0xffffffff;
  const b = Buffer.from(s, 'utf8');
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const API_KEY_PREFIX = 'vi_live_';
/** Length of the stored display prefix (key_start): `vi_live_` and 6 characters of the key. */
export const KEY_START_LENGTH = API_KEY_PREFIX.length + 6;
const KEY_RE = /^vi_live_([0-9A-Za-z]{40,44})_([0-9A-Za-z]{6})$/;

function checksum(body: string): string {
  return base62(Buffer.from(crc32(API_KEY_PREFIX + body).toString(16).padStart(8, '0'), 'hex')).padStart(6, '0');
}

/** A fresh API key: the plaintext (shown once), its SHA-256 (stored), and a short display prefix (stored). */
export function generateApiKey(): { key: string; hash: string; start: string } {
  // 32 bytes of CSPRNG entropy; left-pad so every key has the same length.
  const body = base62(randomBytes(32)).padStart(43, '0');
  const key = `${API_KEY_PREFIX}${body}_${checksum(body)}`;
  return { key, hash: sha256Hex(key), start: key.slice(0, KEY_START_LENGTH) };
}

/** Format and checksum check, so malformed keys are refused without a database query. */
export function isWellFormedApiKey(key: string): boolean {
  const m = KEY_RE.exec(key);
  return m !== null && checksum(m[1]) === m[2];
}

export function sha256Hex(s: string | Buffer): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Constant-time comparison of two secrets of any length (compares digests, never throws). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
