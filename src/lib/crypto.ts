// Secrets helpers. API keys follow ADRs 0015 and 0091: `vi_live_` + 32 random bytes in base62 +
// a CRC32 checksum suffix, stored only as SHA-256.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorField } from './errors.ts';

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
  return base62(
    Buffer.from(
      crc32(API_KEY_PREFIX + body)
        .toString(16)
        .padStart(8, '0'),
      'hex',
    ),
  ).padStart(6, '0');
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

// ---- Secrets at rest (docs/webhooks.md "Secrets at rest") --------------------------------------------------
// Secrets the service must recover (webhook signing secrets) are sealed with AES-256-GCM under one 32-byte key:
// `v1.<iv>.<ciphertext>.<tag>` (base64url), a fresh 12-byte IV per seal. The additional authenticated data binds a
// sealed value to its context (e.g. the organization), so a value copied into another row does not open.

const SEAL_PREFIX = 'v1';

/** Seals `plaintext` under `key` (32 bytes); `context` must be given again to open it. */
export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  return [SEAL_PREFIX, iv.toString('base64url'), ct.toString('base64url'), c.getAuthTag().toString('base64url')].join(
    '.',
  );
}

/** Opens a sealed value; throws when the key, the context or the value is wrong (GCM authentication). */
export function openSecret(key: Buffer, sealed: string, context: string): string {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== SEAL_PREFIX) throw new Error('not a sealed secret');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1], 'base64url'));
  d.setAAD(Buffer.from(context, 'utf8'));
  d.setAuthTag(Buffer.from(parts[3], 'base64url'));
  return Buffer.concat([d.update(Buffer.from(parts[2], 'base64url')), d.final()]).toString('utf8');
}

/** Name of the generated key file under the data dir, used when VULNINTEL_SECRET_KEY is not set. */
export const SECRET_KEY_FILE = 'secret.key';

/**
 * The sealing key: VULNINTEL_SECRET_KEY (config, hex) when set; otherwise `<dataDir>/secret.key`, created with
 * 32 random bytes (mode 0600) on first use. Several replicas must share the key: set VULNINTEL_SECRET_KEY.
 */
export function loadSecretKey(cfg: { secretKey: string | null; dataDir: string }): Buffer {
  if (cfg.secretKey) return Buffer.from(cfg.secretKey, 'hex');
  const file = path.join(cfg.dataDir, SECRET_KEY_FILE);
  try {
    return parseKeyFile(readFileSync(file, 'utf8'), file);
  } catch (e) {
    if (errorField(e, 'code') !== 'ENOENT') throw e;
  }
  mkdirSync(cfg.dataDir, { recursive: true });
  // Written whole to a private temporary file, then linked into place: a process racing this one either links
  // first (its key wins; EEXIST here) or reads a complete file, never a half-written one.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    chmodSync(tmp, 0o600);
    linkSync(tmp, file);
  } catch (e) {
    if (errorField(e, 'code') !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  return parseKeyFile(readFileSync(file, 'utf8'), file);
}

/**
 * The sealing key as `loadSecretKey` would give it, without creating a key file when there is none (null): the start
 * check (services/sealing-key.ts) must not generate a new key next to secrets sealed with another.
 */
export function readSecretKey(cfg: { secretKey: string | null; dataDir: string }): {
  key: Buffer | null;
  source: string;
} {
  if (cfg.secretKey) return { key: Buffer.from(cfg.secretKey, 'hex'), source: 'VULNINTEL_SECRET_KEY' };
  const file = path.join(cfg.dataDir, SECRET_KEY_FILE);
  try {
    return { key: parseKeyFile(readFileSync(file, 'utf8'), file), source: file };
  } catch (e) {
    if (errorField(e, 'code') !== 'ENOENT') throw e;
    return { key: null, source: `${file} (absent; VULNINTEL_SECRET_KEY not set)` };
  }
}

/** The fingerprint of a sealing key: an HMAC under the key (64 hex characters), which tells keys apart and reveals nothing of them. */
export function keyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('vulnintel sealing key fingerprint v1').digest('hex');
}

function parseKeyFile(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${file} does not hold a 32-byte hex key`);
  return Buffer.from(hex, 'hex');
}
