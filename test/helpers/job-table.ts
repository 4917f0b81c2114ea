// The job table of the job-queue tests: the same JobDefinition shape as src/jobs/registry.ts, with handlers that
// report each start, so a test can count runs across processes.
import type { JobDefinition } from '../../src/jobs/queue.ts';

/** pg-boss at its shortest intervals, so a test sees schedules, expiries and retries within seconds. */
export const FAST_TIMINGS = {
  cronMonitorIntervalSeconds: 1,
  cronWorkerIntervalSeconds: 1,
  maintenanceIntervalSeconds: 1,
  pollingIntervalSeconds: 0.5,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function TEST_JOBS(report: (line: string) => void, tickCron: string | null): JobDefinition[] {
  const reporting =
    (name: string, hangFirst: boolean): JobDefinition['run'] =>
    async (_ctx, _data, job) => {
      report(`run ${name} ${job.id} ${job.retryCount}`);
      // The first attempt hangs (until the test kills this worker); a retry finishes at once.
      await sleep(hangFirst && job.retryCount === 0 ? 600_000 : 300);
    };
  return [
    {
      name: 'test-tick',
      summary: 'scheduled, single-flight',
      policy: { retryLimit: 0, retryDelaySeconds: 0, expireInSeconds: 60, singleFlight: true },
      schedule: () => tickCron,
      run: reporting('test-tick', false),
    },
    {
      name: 'test-retried',
      summary: 'retried once after its worker is lost',
      policy: { retryLimit: 1, retryDelaySeconds: 0, expireInSeconds: 2, singleFlight: true },
      schedule: () => null,
      run: reporting('test-retried', true),
    },
    {
      name: 'test-once',
      summary: 'never retried: failed when its worker is lost',
      policy: { retryLimit: 0, retryDelaySeconds: 0, expireInSeconds: 2, singleFlight: true },
      schedule: () => null,
      run: reporting('test-once', true),
    },
  ];
}
