// The start check of the sealing key (docs/webhooks.md "Sealing key"). Every process that opens the database (the
// server, `vulnintel worker`, every CLI command: src/runtime.ts) runs it after the migrations. While sealed secrets
// exist, a process whose key is not the one that sealed them refuses to start: with it, every delivery would fail
// `secret_unreadable` (a CLI run without VULNINTEL_DATA_DIR once generated a fresh ./data/secret.key that way).
import type { Db } from '../store/db.ts';
import { keyFingerprint, openSecret, readSecretKey } from '../lib/crypto.ts';
import { webhookSealContext } from '../domain/webhooks.ts';
import {
  replaceKeyFingerprint,
  recordKeyFingerprint,
  sealedSecrets,
  storedKeyFingerprint,
} from '../store/sealing-key.ts';

export class SealingKeyMismatchError extends Error {
  readonly code = 'sealing_key_mismatch';
}

const short = (fp: string) => `${fp.slice(0, 16)}…`;

/**
 * Refuses (SealingKeyMismatchError) when secrets are sealed and this process's key is not theirs; never creates a
 * key file. With no sealed secret a stale fingerprint is replaced (or cleared), so a fresh key may start.
 * Secrets sealed before fingerprints were recorded are tried with the key: when one opens, its fingerprint is recorded.
 */
export async function checkSealingKey(
  db: Db,
  cfg: { secretKey: string | null; dataDir: string },
): Promise<{ fingerprint: string | null; sealed: number }> {
  const { key, source } = readSecretKey(cfg);
  const mine = key ? keyFingerprint(key) : null;
  const stored = await storedKeyFingerprint(db);
  const { count, sample } = await sealedSecrets(db);
  if (count === 0) {
    if (stored !== null && stored !== mine) await replaceKeyFingerprint(db, mine);
    return { fingerprint: mine, sealed: 0 };
  }
  if (stored !== null && stored === mine) return { fingerprint: mine, sealed: count };
  if (stored === null && key && sample) {
    let opens = false;
    try {
      openSecret(key, sample.secret_sealed, webhookSealContext(sample.id));
      opens = true;
    } catch {
      /* another key: refused below */
    }
    if (opens) {
      await recordKeyFingerprint(db, mine!);
      return { fingerprint: mine, sealed: count };
    }
  }
  const theirs =
    stored === null ? 'a key whose fingerprint was not recorded' : `the key with fingerprint ${short(stored)}`;
  const yours =
    mine === null
      ? `this process has no key: ${source}`
      : `this process's key (${source}) has fingerprint ${short(mine)}`;
  throw new SealingKeyMismatchError(
    `Refusing to start: ${count} webhook signing secret${count === 1 ? ' is' : 's are'} sealed with ${theirs}, and ${yours}. ` +
      'With another key every delivery would fail. Start with the key that sealed them: set VULNINTEL_SECRET_KEY to it, ' +
      'or VULNINTEL_DATA_DIR to the data directory whose secret.key sealed them (docs/webhooks.md "Sealing key").',
  );
}
