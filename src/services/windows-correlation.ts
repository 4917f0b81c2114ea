// The Windows patch-level operations of API v2 (spec §4.2, §2.6, §2.7): validate hosts, evaluate them, store the
// results and read them back. Never sees a request or reply; the routes turn the outcome into a response
// (streamed, see http/routes/v2/stream.ts).
//
// Order of a correlate call ("store nothing unless the response is produced"): every host is
// validated, evaluated and viewed first (all the work that can fail), then the results are stored in one
// transaction, and only then does the route start the response. Nothing is stored when validation, evaluation
// or the store fails; what remains after the store is writing bytes the service already holds, which fails only
// when the client goes away (the results are kept then, as for any completed call).
//
// The evaluation yields to the event loop between hosts (setImmediate), so a 200-host call never stalls other
// requests for longer than one host's evaluation.
import { storedWarnings } from './stored-values.ts';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { environmentNotFound, invalidInput, refusedFile } from './refusal.ts';
import { windowsDataFor, type WindowsData } from '../windows-data.ts';
import { EvaluationRun, type HostEvaluation } from '../domain/windows/evaluate.ts';
import { validateHost } from '../domain/windows/validate.ts';
import {
  identifyingSoftwareHosts,
  validateSoftware,
  type SoftwareRejection,
} from '../domain/windows/validate-software.ts';
import type { HostError, HostWarning, WindowsHost } from '../domain/windows/host-record.ts';
import {
  fixSummary,
  viewHost,
  type FixSummaryItem,
  type HostView,
  type ViewMemo,
  type ViewOptions,
} from '../domain/windows/view.ts';
import { environmentExists, listResults, lockEnvironment, storeResults } from '../store/windows.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { assertAssetRoom } from './plan-caps.ts';

/** Spec §4.2 / §7: at most 200 hosts per call, counted before any per-host validation. */
export const MAX_HOSTS = 200;
export const MAX_SOFTWARE = 200 * 1000;

export interface CorrelateInput {
  orgId: number;
  requestId: string;
  environmentId: number | null;
  hosts: unknown[];
  software: unknown[];
  options: ViewOptions;
  /** A file upload of the web app: one refused host refuses the call (422 with data.rejected), nothing stored. */
  wholeFile?: boolean;
}

export interface RejectedHost {
  asset_id: string | null;
  index: number;
  errors: HostError[];
  retryable: false;
  retry_after_seconds: null;
  action: 'fix_input';
}

/** Everything a correlate response holds except the envelope's api block and meta.took_ms. */
export interface Correlation {
  /** One view per accepted host, in submitted order; hosts with the same facts share their `cves` array. */
  assets: HostView[];
  rejected: RejectedHost[];
  software_stored: number;
  software_rejected: SoftwareRejection[];
  fix_summary: FixSummaryItem[];
  microsoft_data_as_of: string | null;
}

export interface ResultsQuery {
  orgId: number;
  environmentId?: number;
  assetId?: string;
  page: number;
  perPage: number;
  options: ViewOptions;
}

export interface StoredView extends HostView {
  environment_id: number | null;
  evaluated_on: string;
}

export interface ResultsPage {
  assets: StoredView[];
  fix_summary: FixSummaryItem[];
  total: number;
  microsoft_data_as_of: string | null;
}

function newest(dates: (string | null)[]): string | null {
  let m: string | null = null;
  for (const d of dates) if (d && (!m || d > m)) m = d;
  return m;
}

/** The host-level part of a result, kept with the host record (the CVE list is recomputed when read). */
function header(e: HostEvaluation) {
  const { items: _i, os_build: _b, ...h } = e;
  void _i;
  void _b;
  return h;
}

export interface WindowsCorrelationDeps {
  db: Db;
  clock: Clock;
  /** The plan caps: stored hosts count against the organization's asset cap (services/plan-caps.ts). */
  planCaps: Readonly<PlanCapsTable>;
  /** Told when a background refresh of the cached corpus signals fails (the cached ones stay until they expire). */
  onCacheError?: (err: Error) => void;
}

type AcceptedHost = { host: WindowsHost; warnings: HostWarning[] };

/**
 * Validates each host alone (`now`: the request's time, for collected_at); every host refused → 422 with all of them in data.rejected (spec §4.2), `refusedData()`
 * added to its data. `identifyingSoftware`: asset_ids whose software records carry identifying fields; such a host
 * is refused (forbidden_field on installed_software) and nothing of it is stored.
 */
function splitHosts(
  hosts: unknown[],
  now: Date,
  refusedData: () => Record<string, unknown>,
  identifyingSoftware = new Set<string>(),
): { accepted: AcceptedHost[]; rejected: RejectedHost[] } {
  const rejected: RejectedHost[] = [];
  const accepted: AcceptedHost[] = [];
  // asset_id → index of the accepted host that has it: an asset_id names one host, and a second record of it in the
  // same request would get an answer of its own while only one result is stored.
  const first = new Map<string, number>();
  hosts.forEach((raw, index) => {
    const v = validateHost(raw, now);
    const refuse = (assetId: string | null, errors: HostError[]) =>
      rejected.push({
        asset_id: assetId,
        index,
        errors,
        retryable: false,
        retry_after_seconds: null,
        action: 'fix_input',
      });
    if (!v.ok) refuse(v.asset_id, v.errors);
    else if (identifyingSoftware.has(v.host.asset_id)) {
      refuse(v.host.asset_id, [
        {
          code: 'forbidden_field',
          field: 'installed_software',
          message:
            'a software record of this host carries identifying data (see data.software_rejected); nothing of this host was stored',
        },
      ]);
    } else if (first.has(v.host.asset_id)) {
      refuse(v.host.asset_id, [
        {
          code: 'duplicate_asset_id',
          field: 'asset_id',
          message: `asset_id is the same as host ${first.get(v.host.asset_id)} of this request; send each host once (this record was not evaluated)`,
        },
      ]);
    } else {
      first.set(v.host.asset_id, index);
      accepted.push({ host: v.host, warnings: v.warnings });
    }
  });
  if (accepted.length === 0) {
    // Nothing is stored.
    throw invalidInput(
      hosts.length ? 'Every host was refused; see data.rejected' : 'windows_hosts is empty',
      [
        {
          field: 'body.windows_hosts',
          message: hosts.length ? 'every host was refused' : 'at least one host is required',
          type: 'value_error.hosts',
        },
      ],
      { rejected, ...refusedData() },
    );
  }
  return { accepted, rejected };
}

export class WindowsCorrelation {
  readonly data: WindowsData;

  constructor(private readonly deps: WindowsCorrelationDeps) {
    this.data = windowsDataFor(deps.db, () => deps.clock.now().getTime(), deps.onCacheError);
  }

  private readonly storeQueues = new Map<string, Promise<unknown>>();

  /**
   * Stores of one organization and environment run one at a time in this process. Concurrent calls for the same
   * asset_id would otherwise each hold a pooled connection while waiting for the row lock of the first (60 of them
   * drained the pool: 503s); the row lock still orders stores across processes.
   */
  private serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.storeQueues.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => {});
    this.storeQueues.set(key, tail);
    void tail.then(() => {
      if (this.storeQueues.get(key) === tail) this.storeQueues.delete(key);
    });
    return next;
  }

  private today(): string {
    return this.deps.clock.now().toISOString().slice(0, 10);
  }

  async assertEnvironment(orgId: number, environmentId: number | null): Promise<void> {
    if (environmentId !== null && !(await environmentExists(this.deps.db, orgId, environmentId))) {
      throw environmentNotFound(environmentId);
    }
  }

  /** Validate, evaluate and view every host, then store the results in one transaction (see the file head). */
  async correlate(input: CorrelateInput): Promise<Correlation> {
    await this.assertEnvironment(input.orgId, input.environmentId);
    const { accepted, rejected } = splitHosts(
      input.hosts,
      this.deps.clock.now(),
      () => ({ software_stored: 0, software_rejected: validateSoftware(input.software, new Set()).rejected }),
      identifyingSoftwareHosts(input.software),
    );
    if (input.wholeFile && rejected.length) throw refusedFile(rejected.length, input.hosts.length, rejected);
    const sw = validateSoftware(input.software, new Set(accepted.map((a) => a.host.asset_id)));
    const today = this.today();
    const { evals, assets, info } = await this.evaluateAll(accepted, input.options, today);
    const summary = fixSummary(evals);
    // Stored: the validated host record, the evaluation date and the host-level result (product, labels,
    // counts, fix groups). The per-CVE list is recomputed from these when read (GET results).
    await this.serialised(`${input.orgId}/${input.environmentId ?? 0}`, () =>
      storeResults(
        this.deps.db,
        input.orgId,
        input.environmentId,
        today,
        input.requestId,
        evals.map((e, i) => ({
          asset_id: e.asset_id,
          host: accepted[i].host,
          warnings: e.warnings,
          data_as_of: e.data_as_of,
          result: header(e),
        })),
        sw.stored,
        async (trx, ids) => {
          await assertAssetRoom(trx, this.deps.planCaps, input.orgId, ids);
          // The environment may have been deleted since the call began: 404, nothing stored (never a foreign-key 500).
          if (input.environmentId !== null && !(await lockEnvironment(trx, input.orgId, input.environmentId))) {
            throw environmentNotFound(input.environmentId);
          }
        },
      ),
    );
    return {
      assets,
      rejected,
      software_stored: sw.stored.length,
      software_rejected: sw.rejected,
      fix_summary: summary,
      microsoft_data_as_of: newest(evals.map((e) => e.data_as_of)) ?? info.index.dataAsOf,
    };
  }

  /**
   * check-windows: the same validation and evaluation as correlate, nothing stored; per host the
   * counts, end of life and fix groups. A call with every host refused is a 422 as for correlate.
   * `beforeEvaluating` is called with the number of accepted hosts once they are validated (asset checks spent).
   */
  async evaluate(
    hosts: unknown[],
    options: ViewOptions,
    beforeEvaluating: (accepted: number) => Promise<void> = async () => {},
  ): Promise<{
    assets: HostView[];
    rejected: RejectedHost[];
    fix_summary: FixSummaryItem[];
    microsoft_data_as_of: string | null;
  }> {
    const { accepted, rejected } = splitHosts(hosts, this.deps.clock.now(), () => ({}));
    await beforeEvaluating(accepted.length);
    const { evals, assets, info } = await this.evaluateAll(accepted, options, this.today());
    return {
      assets,
      rejected,
      fix_summary: fixSummary(evals),
      microsoft_data_as_of: newest(evals.map((e) => e.data_as_of)) ?? info.index.dataAsOf,
    };
  }

  /** Evaluates and views accepted hosts in order, yielding to the event loop between hosts. */
  private async evaluateAll(accepted: AcceptedHost[], options: ViewOptions, today: string) {
    const info = await this.data.index();
    const run = new EvaluationRun(info.index, await this.data.signals(info), today);
    const evals: HostEvaluation[] = [];
    const assets: HostView[] = [];
    const memo: ViewMemo = new Map();
    for (const a of accepted) {
      const e = run.evaluate(a.host, a.warnings);
      evals.push(e);
      assets.push(viewHost(e, options, memo));
      await yieldToLoop();
    }
    return { evals, assets, info };
  }

  /**
   * Stored results, each host re-evaluated at its stored evaluation date (the same date-dependent labels and ESU
   * decisions as when it was submitted) against the Microsoft data current now.
   */
  async results(q: ResultsQuery): Promise<ResultsPage> {
    if (q.environmentId !== undefined) await this.assertEnvironment(q.orgId, q.environmentId);
    const { total, rows } = await listResults(
      this.deps.db,
      q.orgId,
      { environmentId: q.environmentId, assetId: q.assetId },
      q.perPage,
      (q.page - 1) * q.perPage,
    );
    const info = await this.data.index();
    const signals = await this.data.signals(info);
    const runs = new Map<string, EvaluationRun>();
    const assets: StoredView[] = [];
    const evals: HostEvaluation[] = [];
    for (const r of rows) {
      let run = runs.get(r.evaluated_on);
      if (!run) {
        run = new EvaluationRun(info.index, signals, r.evaluated_on);
        runs.set(r.evaluated_on, run);
      }
      const e = run.evaluate(r.host as WindowsHost, storedWarnings(r.warnings));
      evals.push(e);
      assets.push({ ...viewHost(e, q.options), environment_id: r.environment_id, evaluated_on: r.evaluated_on });
      await yieldToLoop();
    }
    return {
      assets,
      fix_summary: fixSummary(evals),
      total,
      microsoft_data_as_of: newest(evals.map((e) => e.data_as_of)) ?? info.index.dataAsOf,
    };
  }

  /** A page of an environment's stored host records as submitted (its Windows inventory), by asset_id. */
  async inventory(
    orgId: number,
    environmentId: number,
    page: number,
    perPage: number,
  ): Promise<{ total: number; hosts: WindowsHost[] }> {
    await this.assertEnvironment(orgId, environmentId);
    const { total, rows } = await listResults(this.deps.db, orgId, { environmentId }, perPage, (page - 1) * perPage);
    return { total, hosts: rows.map((r) => r.host as WindowsHost) };
  }

  /** Build the index and load the signals ahead of the first call (the server does it once it listens). */
  warm() {
    return this.data.warm();
  }
}

export function createWindowsCorrelation(deps: WindowsCorrelationDeps): WindowsCorrelation {
  return new WindowsCorrelation(deps);
}
