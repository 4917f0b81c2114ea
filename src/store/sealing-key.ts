// The fingerprint of the sealing key (migration 1600; docs/webhooks.md "Sealing key"). Not tenant data: one row
// for the whole installation, and counts of sealed secrets across organizations (operator checks at start).
import type { Db } from './db.ts';

export async function storedKeyFingerprint(db: Db): Promise<string | null> {
  const row = await db.selectFrom('sealing_key').select('fingerprint').executeTakeFirst();
  return row?.fingerprint ?? null;
}

/** Records the fingerprint unless one is stored already (the first seal records it; later seals keep it). */
export async function recordKeyFingerprint(db: Db, fingerprint: string): Promise<void> {
  await db
    .insertInto('sealing_key')
    .values({ fingerprint })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Replaces a stale fingerprint (no sealed secret left) by this one, or clears it (null). */
export async function replaceKeyFingerprint(db: Db, fingerprint: string | null): Promise<void> {
  await db.deleteFrom('sealing_key').execute();
  if (fingerprint !== null) await recordKeyFingerprint(db, fingerprint);
}

/** How many secrets are sealed (every webhook holds one), and one of them to try a key on. */
export async function sealedSecrets(
  db: Db,
): Promise<{ count: number; sample: { id: number; secret_sealed: string } | null }> {
  const c = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const sample = await db
    .selectFrom('webhooks')
    .select(['id', 'secret_sealed'])
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return { count: Number(c.n), sample: sample ?? null };
}
