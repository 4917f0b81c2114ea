// Webhooks and their deliveries (migration 0900; docs/webhooks.md). Tenant data: every function takes orgId
// first, except the delivery bookkeeping, which works on a webhook id the service got from an org-scoped read.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';
import { WEBHOOK_FAILURE_LIMIT, type WebhookEvent } from '../domain/webhooks.ts';
import type { Tier } from '../domain/tiers.ts';
import { errorCode, errorField } from '../lib/errors.ts';

export interface WebhookRow {
  id: number;
  org_id: number;
  label: string;
  url: string;
  secret_sealed: string;
  enabled: boolean;
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: Date | null;
  last_delivery_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'org_id',
  'label',
  'url',
  'secret_sealed',
  'enabled',
  'consecutive_failures',
  'disabled_reason',
  'disabled_at',
  'last_delivery_at',
  'created_at',
  'updated_at',
] as const;

/** Inserts a webhook; the id is drawn by the database (vi_tenant_id()). */
export async function insertWebhook(
  db: Db,
  orgId: number,
  w: { id: number; label: string; url: string; secret_sealed: string; now: Date },
): Promise<WebhookRow> {
  return db
    .insertInto('webhooks')
    .values({
      id: w.id,
      org_id: orgId,
      label: w.label,
      url: w.url,
      secret_sealed: w.secret_sealed,
      created_at: w.now,
      updated_at: w.now,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function countWebhooks(db: Db, orgId: number): Promise<number> {
  const r = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A fresh random tenant id (so the secret can be sealed with its webhook's id before the insert). */
export async function newTenantId(db: Db): Promise<number> {
  const r = await sql<{ id: number }>`SELECT vi_tenant_id() AS id`.execute(db);
  return Number(r.rows[0].id);
}

export async function listWebhooks(db: Db, orgId: number): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .select(COLUMNS)
    .where('org_id', '=', orgId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The webhooks a cve.alert of the organization goes to: its enabled ones, none when the organization is not active
 * or its plan (`tiers`: the plans with `webhook_delivery`) has no webhooks; each with the organization's plan.
 */
export async function listEnabledWebhooks(
  db: Db,
  orgId: number,
  tiers: readonly Tier[],
): Promise<(WebhookRow & { tier: Tier })[]> {
  return db
    .selectFrom('webhooks')
    .innerJoin('organizations', 'organizations.id', 'webhooks.org_id')
    .select(COLUMNS.map((c) => `webhooks.${c}` as const))
    .select('organizations.tier')
    .where('webhooks.org_id', '=', orgId)
    .where('webhooks.enabled', '=', true)
    .where('organizations.status', '=', 'active')
    .where('organizations.tier', 'in', [...tiers])
    .orderBy('webhooks.created_at')
    .orderBy('webhooks.id')
    .execute();
}

export async function getWebhook(db: Db, orgId: number, id: number): Promise<WebhookRow | null> {
  return (
    (await db
      .selectFrom('webhooks')
      .select(COLUMNS)
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst()) ?? null
  );
}

export async function updateWebhook(
  db: Db,
  orgId: number,
  id: number,
  set: { label?: string; url?: string },
  now: Date,
): Promise<WebhookRow | null> {
  return (
    (await db
      .updateTable('webhooks')
      .set({ ...set, updated_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst()) ?? null
  );
}

export async function deleteWebhook(db: Db, orgId: number, id: number): Promise<boolean> {
  const r = await db.deleteFrom('webhooks').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Re-enables (spec §3.1 disabled → active); the failure count restarts at 0 (ADR 0085). Idempotent. */
export async function enableWebhook(db: Db, orgId: number, id: number, now: Date): Promise<WebhookRow | null> {
  return (
    (await db
      .updateTable('webhooks')
      .set({ enabled: true, consecutive_failures: 0, disabled_reason: null, disabled_at: null, updated_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst()) ?? null
  );
}

/**
 * Replaces the sealed secret under the webhook's row lock (FOR UPDATE): from this commit on, every delivery signs
 * with the new one only. `conflict`: another rotation was stamped at or after `requestedAt` (the arrival of this
 * request), so the two overlapped and that one's secret is in force; null: no such webhook in the organization.
 * `rotatedAt` is wall-clock time taken under the lock, so every rotation still waiting on it sees it.
 */
export async function replaceSecret(
  db: Db,
  orgId: number,
  id: number,
  sealed: string,
  o: { now: Date; requestedAt: Date; rotatedAt: () => Date },
): Promise<WebhookRow | 'conflict' | null> {
  return db.transaction().execute(async (trx) => {
    const cur = await trx
      .selectFrom('webhooks')
      .select('secret_rotated_at')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!cur) return null;
    if (cur.secret_rotated_at !== null && new Date(cur.secret_rotated_at).getTime() >= o.requestedAt.getTime())
      return 'conflict';
    return (
      (await trx
        .updateTable('webhooks')
        .set({ secret_sealed: sealed, secret_rotated_at: o.rotatedAt(), updated_at: o.now })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst()) ?? null
    );
  });
}

// ---- Deliveries ----------------------------------------------------------------------------------------------

/**
 * Claims (webhook, CVE, event) before anything is sent: a row, or null when the webhook already has one for this
 * CVE (sent, failed, or claimed by a run that died: never resent), is no longer enabled or no longer exists (deleted
 * meanwhile, even while this statement ran), or its organization is
 * deactivated or on a plan without `webhook_delivery` (`tiers`: the plans that have it). A test delivery
 * (`requireEnabled` false) may go to a disabled webhook. The webhook's
 * secret and URL are read in the same statement, so a rotation or an update committed before the claim is used.
 */
export async function claimDelivery(
  db: Db,
  webhookId: number,
  cveId: string | null,
  event: WebhookEvent,
  now: Date,
  tiers: readonly string[],
  requireEnabled = true,
): Promise<{ delivery_id: number; url: string; secret_sealed: string; org_id: number } | null> {
  const r = await claimStatement(db, webhookId, cveId, event, now, tiers, requireEnabled).catch((e: unknown) => {
    // Deleted by a concurrent DELETE /webhooks/{id} after the statement read it: its insert waited on the row lock,
    // then found no webhook to refer to. Nothing to send to, as if the delete had come first.
    if (errorCode(e) === '23503' && errorField(e, 'constraint') === 'webhook_deliveries_webhook_id_fkey') return null;
    throw e;
  });
  const row = r?.rows[0];
  return row ? { ...row, delivery_id: Number(row.delivery_id), org_id: Number(row.org_id) } : null;
}

function claimStatement(
  db: Db,
  webhookId: number,
  cveId: string | null,
  event: WebhookEvent,
  now: Date,
  tiers: readonly string[],
  requireEnabled: boolean,
) {
  return sql<{ delivery_id: number; url: string; secret_sealed: string; org_id: number }>`
    WITH w AS (
      SELECT h.id, h.org_id, h.url, h.secret_sealed FROM webhooks h JOIN organizations o ON o.id = h.org_id
      WHERE h.id = ${webhookId} AND (h.enabled OR NOT ${requireEnabled}) AND o.status = 'active' AND o.tier = ANY(${sql.val([...tiers])}::text[])
    ),
    c AS (
      INSERT INTO webhook_deliveries (org_id, webhook_id, cve_id, event, status, claimed_at)
      SELECT w.org_id, w.id, ${cveId}, ${event}, 'claimed', ${now} FROM w
      ON CONFLICT (webhook_id, cve_id, event) DO NOTHING
      RETURNING id
    )
    SELECT c.id AS delivery_id, w.url, w.secret_sealed, w.org_id FROM c, w`.execute(db);
}

export interface DeliveryOutcome {
  ok: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** When the request started (stays NULL on a claimed row whose process died before recording). */
  sentAt: Date;
  finishedAt: Date;
  /** false for test deliveries: recorded, but they move neither the failure count nor the state. */
  countsToState: boolean;
}

/**
 * Records a delivery's outcome and moves the webhook's state in one transaction. A success resets the count of
 * consecutive failures; a failure adds one and the 5th disables the webhook. The row lock (FOR UPDATE) serialises
 * concurrent outcomes of one webhook, so exactly one of them sees enabled → disabled (`justDisabled`).
 */
export async function recordOutcome(
  db: Db,
  webhookId: number,
  deliveryId: number,
  o: DeliveryOutcome,
): Promise<{ enabled: boolean; consecutiveFailures: number; justDisabled: boolean } | null> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({
        status: o.ok ? 'delivered' : 'failed',
        http_status: o.httpStatus,
        duration_ms: o.durationMs,
        error: o.error,
        sent_at: o.sentAt,
        finished_at: o.finishedAt,
      })
      .where('id', '=', deliveryId)
      .execute();
    if (!o.countsToState) return null;
    const r = await sql<{ enabled: boolean; consecutive_failures: number; just_disabled: boolean }>`
      WITH prev AS (SELECT id, enabled FROM webhooks WHERE id = ${webhookId} FOR UPDATE)
      UPDATE webhooks w SET
        consecutive_failures = CASE WHEN ${o.ok} THEN 0 ELSE w.consecutive_failures + 1 END,
        enabled = CASE WHEN ${o.ok} THEN w.enabled ELSE w.enabled AND w.consecutive_failures + 1 < ${WEBHOOK_FAILURE_LIMIT} END,
        disabled_reason = CASE WHEN NOT ${o.ok} AND w.enabled AND w.consecutive_failures + 1 >= ${WEBHOOK_FAILURE_LIMIT}
          THEN 'consecutive_failures' ELSE w.disabled_reason END,
        disabled_at = CASE WHEN NOT ${o.ok} AND w.enabled AND w.consecutive_failures + 1 >= ${WEBHOOK_FAILURE_LIMIT}
          THEN ${o.finishedAt} ELSE w.disabled_at END,
        last_delivery_at = ${o.finishedAt}
      FROM prev WHERE w.id = prev.id
      RETURNING w.enabled, w.consecutive_failures, (prev.enabled AND NOT w.enabled) AS just_disabled`.execute(trx);
    const row = r.rows[0];
    return row
      ? { enabled: row.enabled, consecutiveFailures: row.consecutive_failures, justDisabled: row.just_disabled }
      : null;
  });
}

export interface DeliveryRow {
  id: number;
  cve_id: string | null;
  event: string;
  status: string;
  claimed_at: Date;
  sent_at: Date | null;
  finished_at: Date | null;
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
}

/** A webhook's deliveries, newest first, one page, and their total. */
export async function listDeliveries(
  db: Db,
  orgId: number,
  webhookId: number,
  limit: number,
  offset: number,
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const base = db.selectFrom('webhook_deliveries').where('org_id', '=', orgId).where('webhook_id', '=', webhookId);
  const [rows, count] = await Promise.all([
    base
      .select([
        'id',
        'cve_id',
        'event',
        'status',
        'claimed_at',
        'sent_at',
        'finished_at',
        'http_status',
        'duration_ms',
        'error',
      ])
      .orderBy('claimed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}
