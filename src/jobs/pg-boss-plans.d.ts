// pg-boss's SQL plans (a CommonJS module of the package, not typed by it): the queue recognises the two statements
// whose failures pg-boss leaves unhandled (src/jobs/queue.ts).
declare module 'pg-boss/src/plans.js' {
  const plans: { completeJobs(schema: string): string; failJobsById(schema: string): string };
  export default plans;
}
