// The `vulnintel` command. Every command that prints data takes --json.
// The commands are explicit tables: CORE_COMMANDS here and those of cli-commands.ts (for a command other than
// `serve`, only the table that defines it is loaded); `vulnintel help` lists them all.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createLogger } from './lib/logger.ts';
import type { Runtime } from './runtime.ts';
import { UsageError, type CliContext, type Command } from './cli/types.ts';
import { errorMessage } from './lib/errors.ts';

// The CLI's types live in src/cli/types.ts; re-exported for the command tables that import them from here.
export { UsageError };
export type { CliContext, Command };

/** How long a stopped command may take to settle on its own before the dispatcher closes the database under it. */
const STOP_GRACE_MS = 10_000;

export const CORE_COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    summary: 'Start the API server (same as npm start)',
    usage: 'vulnintel serve',
    options: {},
    async run() {
      const { serve } = await import('./main.ts');
      await serve();
      return new Promise<never>(() => {}); // serve() owns the process from here
    },
  },
  migrate: {
    summary: 'Apply database migrations',
    usage: 'vulnintel migrate [--json]',
    options: {},
    async run(ctx) {
      const rt = await ctx.runtime();
      const r = await rt.store.pool.query<{ version: string; name: string; applied_at: Date }>(
        'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
      );
      if (ctx.json) ctx.out(JSON.stringify({ migrations: r.rows }));
      else
        ctx.out(
          `Schema up to date: ${r.rows.length} migrations applied (latest ${r.rows.at(-1)?.version}_${r.rows.at(-1)?.name}).`,
        );
    },
  },
};

function help(COMMANDS: Readonly<Record<string, Command>>): string {
  const lines = ['Usage: vulnintel <command> [options]', '', 'Commands:'];
  const width = Math.max(16, ...Object.keys(COMMANDS).map((n) => n.length + 1));
  for (const [name, c] of Object.entries(COMMANDS).sort()) lines.push(`  ${name.padEnd(width)} ${c.summary}`);
  lines.push('', 'Every command that prints data accepts --json.');
  return lines.join('\n');
}

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

const stdio: CliIo = {
  out: (s) => void process.stdout.write(s + '\n'),
  err: (s) => void process.stderr.write(s + '\n'),
};

export async function runCli(argv: string[], io: CliIo = stdio): Promise<number> {
  // `serve` needs none of the command modules (ingest, admin): skipping them keeps the start fast.
  const COMMANDS =
    argv[0] === 'serve' || argv[0] === 'migrate'
      ? CORE_COMMANDS
      : { ...CORE_COMMANDS, ...(await (await import('./cli-commands.ts')).commandsFor(argv)) };
  // Commands with a space in their name (e.g. "org create") are matched on the first two words.
  const two = argv.slice(0, 2).join(' ');
  const name = COMMANDS[two] ? two : argv[0];
  const rest = COMMANDS[two] ? argv.slice(2) : argv.slice(1);
  if (!name || name === 'help' || name === '--help' || !COMMANDS[name]) {
    (name && !['help', '--help'].includes(name) ? io.err : io.out)(
      name && !['help', '--help'].includes(name)
        ? `Unknown command: ${argv.join(' ')}\n\n${help(COMMANDS)}`
        : help(COMMANDS),
    );
    return name && !['help', '--help'].includes(name) ? 2 : 0;
  }
  const cmd = COMMANDS[name];
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...cmd.options, json: { type: 'boolean' }, help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    io.err(`${errorMessage(e)}\nUsage: ${cmd.usage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(`${cmd.summary}\nUsage: ${cmd.usage}`);
    return 0;
  }
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(e.message);
    return 2;
  }
  // Logs go to stderr so --json output on stdout stays machine-readable.
  const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
  let rt: Runtime | null = null;
  // A closure, so the runtime opened by `ctx.runtime()` is seen here (TypeScript would keep `rt` narrowed to null).
  const closeRuntime = async () => {
    if (rt) await rt.close();
  };
  // Set by a stop signal (from the handler below, so kept in an object TypeScript does not narrow).
  const stop: { by: NodeJS.Signals | null; reported: boolean } = { by: null, reported: false };
  const signalCode = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 130 : 143);
  const reportStop = (signal: NodeJS.Signals) => {
    if (stop.reported) return;
    stop.reported = true;
    io.err(`Stopped by ${signal}.`);
  };
  const aborter = new AbortController();
  let settled: () => void = () => {};
  const commandSettled = new Promise<void>((resolve) => (settled = resolve));
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.by) return;
    stop.by = signal;
    // The command stops at its next check (an import between batches, its run recorded as interrupted); only a
    // command that has not settled by then has the database closed under it. Closed at once, the database would fail
    // the import on "driver has already been destroyed", and the process would often exit before saying
    // "Stopped by …".
    aborter.abort(new Error(`interrupted by ${signal}`));
    void (async () => {
      try {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          commandSettled,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
        ]);
        clearTimeout(timer);
        await closeRuntime();
      } finally {
        reportStop(signal);
        process.exit(signalCode(signal));
      }
    })();
  };
  const ctx: CliContext = {
    config,
    log,
    json: Boolean(parsed.values.json),
    out: io.out,
    err: io.err,
    signal: aborter.signal,
    runtime: async () => {
      if (rt) return rt;
      // An interrupted command still stops the embedded cluster it started (never an orphan postmaster).
      // Installed only here: `serve` owns its signals itself (main.ts).
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const { openRuntime } = await import('./runtime.ts');
      rt = await openRuntime(config, log, { statementTimeoutMs: 0, attachEmbedded: true });
      return rt;
    },
  };
  try {
    const code = await cmd.run(ctx, parsed.values, parsed.positionals);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}\nUsage: ${cmd.usage}`);
      return 2;
    }
    // Stopped by a signal: the command failed because its runtime was closed under it (an import's batches in
    // flight, say); the exit code says why, and that error is not the reason.
    if (stop.by) {
      reportStop(stop.by);
      return signalCode(stop.by);
    }
    io.err(`Error: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    settled();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await closeRuntime();
  }
}

const isMain =
  process.argv[1] && (import.meta.url === `file://${process.argv[1]}` || process.argv[1].endsWith('/bin/vulnintel.js'));
if (isMain) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0 || !['serve'].includes(process.argv[2] ?? '')) process.exit(code);
    },
    (e: unknown) => {
      process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
