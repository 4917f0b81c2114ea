// The CLI's own types: a command (its table entry), what it is given to run, and the refusal of a wrong invocation.
// Command tables live in src/cli/ and src/cli-commands.ts; nothing below the CLI imports these (test/unit/layers.test.ts).
import type { ParseArgsConfig } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Runtime } from '../runtime.ts';

export class UsageError extends Error {}

export interface CliContext {
  config: Readonly<Config>;
  log: Logger;
  /** Opens the database (embedded or DATABASE_URL) and migrates; closed by the dispatcher. */
  runtime(): Promise<Runtime>;
  out(text: string): void;
  /** Diagnostics and refusals (stderr), so stdout stays machine-readable. */
  err(text: string): void;
  json: boolean;
  /**
   * Aborted by SIGINT/SIGTERM. A long command (an import) passes it on, so it stops between batches and records
   * its run as interrupted; the dispatcher gives it STOP_GRACE_MS to do so before closing the database under it.
   */
  signal: AbortSignal;
}

export interface Command {
  summary: string;
  usage: string;
  options: ParseArgsConfig['options'];
  run(ctx: CliContext, values: Record<string, unknown>, positionals: string[]): Promise<number | void>;
}
