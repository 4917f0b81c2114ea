// Monthly API-call allowance (spec §8: tracked and reported, not enforced), counted write-behind.
// Counting every keyed request with its own synchronous upsert serialised all requests of an organization on one
// row (keyed list/detail traffic ran at 3–7 % of anonymous throughput). Now the first call of an organization and
// month in this process is counted in the database, which also tells us the shared total; later calls are counted
// in memory and flushed every second (and when the app closes). The reported X-RateLimit-Used is the last total
// read from the database plus this process's unflushed calls, so it never lags this process's own traffic. The total
// is read again whenever it is older than the flush interval: a call that finds it older is counted in the database
// at once, as a first call is (an idle process, or one whose flushes found nothing to write, would otherwise report
// the total of its last write however much other processes counted since). Entries unused for a while are dropped
// (a month's entry never grows the map past that month). A crash loses at most one interval of counts.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';
import { recordApiCall } from './identity.ts';

interface Entry {
  orgId: number;
  month: string;
  /** Total read from the database at the last write (all replicas' flushed calls). */
  base: number;
  /** Calls counted here and being written right now. */
  inflight: number;
  /** Calls counted here and not yet written. */
  pending: number;
  /** When `base` was read from the database (monotonic ms). */
  readAt: number;
  /** Last call counted here (monotonic ms). */
  usedAt: number;
}

/** An entry without calls for this long is dropped at a flush (monotonic ms). */
const IDLE_ENTRY_MS = 10 * 60_000;

export class UsageMeter {
  private readonly entries = new Map<string, Entry>();
  /** keyId → latest use not yet written to api_keys.last_used_at. */
  private readonly keyUses = new Map<number, { orgId: number; at: Date }>();
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly intervalMs = 1000,
    private readonly onError: (e: unknown) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush().catch(this.onError), intervalMs);
    this.timer.unref();
  }

  /** Counts one call of a key; returns the organization's calls in that month so far. */
  async record(orgId: number, keyId: number, month: string, now: Date): Promise<number> {
    const k = `${orgId}|${month}`;
    const e = this.entries.get(k);
    const t = performance.now();
    // No entry, or its total read too long ago (other processes count too): this call is written now, which
    // reads the shared total back.
    if (!e || t - e.readAt > this.intervalMs) {
      if (e) e.usedAt = t;
      const total = await recordApiCall(this.db, orgId, keyId, month, now);
      const read = performance.now();
      const cur = this.entries.get(k); // another call may have finished meanwhile
      if (cur) {
        cur.base = Math.max(cur.base, total);
        cur.readAt = Math.max(cur.readAt, read);
        cur.usedAt = Math.max(cur.usedAt, read);
      } else {
        this.entries.set(k, { orgId, month, base: total, inflight: 0, pending: 0, readAt: read, usedAt: read });
      }
      const x = this.entries.get(k)!;
      return Math.max(total, x.base + x.inflight + x.pending);
    }
    e.pending += 1;
    e.usedAt = t;
    const prev = this.keyUses.get(keyId);
    if (!prev || prev.at < now) this.keyUses.set(keyId, { orgId, at: now });
    return e.base + e.inflight + e.pending;
  }

  /**
   * Writes every count and key use recorded before the call. A flush already under way may have passed an entry
   * recorded since it began (the timer's flush racing a caller's), so a caller that finds one running gets one more
   * flush after it; callers meanwhile share that queued flush.
   */
  flush(): Promise<void> {
    if (!this.running) {
      this.running = this.doFlush().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        return this.flush();
      });
    return this.queued;
  }

  private async doFlush(): Promise<void> {
    const idleSince = performance.now() - IDLE_ENTRY_MS;
    for (const [k, e] of this.entries) {
      if (e.pending === 0 && e.inflight === 0 && e.usedAt < idleSince) this.entries.delete(k);
    }
    for (const e of this.entries.values()) {
      if (e.pending === 0) continue;
      const n = e.pending;
      e.pending = 0;
      e.inflight += n;
      try {
        const r = await sql<{ calls: number }>`
          INSERT INTO api_usage_monthly AS u (org_id, month, calls) VALUES (${e.orgId}, ${e.month}::date, ${n})
          ON CONFLICT (org_id, month) DO UPDATE SET calls = u.calls + ${n}
          RETURNING calls`.execute(this.db);
        e.base = r.rows[0].calls;
        e.readAt = performance.now();
      } catch (err) {
        e.pending += n; // kept for the next flush
        this.onError(err);
      } finally {
        e.inflight -= n;
      }
    }
    if (this.keyUses.size > 0) {
      const uses = [...this.keyUses.entries()];
      this.keyUses.clear();
      try {
        // The rows locked in key-id order (as revokeOrgKeys in store/accounts.ts), as every multi-key update does: two
        // such statements (another replica's flush, an organization's keys revoked) wait for each other instead of
        // deadlocking.
        await sql`
          WITH v AS (SELECT * FROM unnest(${uses.map(([id]) => id)}::bigint[], ${uses.map(([, u]) => u.orgId)}::bigint[], ${uses.map(([, u]) => u.at.toISOString())}::timestamptz[]) AS v(id, org_id, at)),
            locked AS (SELECT k.id FROM api_keys k JOIN v ON k.id = v.id AND k.org_id = v.org_id ORDER BY k.id FOR NO KEY UPDATE OF k)
          UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, v.at)
          FROM v JOIN locked l ON l.id = v.id
          WHERE k.id = v.id`.execute(this.db);
      } catch (err) {
        for (const [id, u] of uses) if (!this.keyUses.has(id)) this.keyUses.set(id, u);
        this.onError(err);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
