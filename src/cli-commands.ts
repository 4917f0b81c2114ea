// The tables of the CLI commands beyond `serve` and `migrate` (src/cli.ts). A command loads only the table that
// defines it (TABLES: which table holds which command name), so `vulnintel import` does not load the job queue,
// the mailer or the HTTP client of the sync, and `vulnintel org create` not the import pipeline; `help` and an
// unknown command load them all. A new command goes into one of these tables (or a new one listed here) and its
// name into TABLES: nothing registers itself on import (test/unit/tables.test.ts holds the two equal).
import type { Command } from './cli.ts';

type Table = Readonly<Record<string, Command>>;

/** Each table's loader, by the names of the commands it defines. */
export const TABLES: readonly { names: readonly string[]; load: () => Promise<Table> }[] = [
  {
    names: ['org create', 'org set-tier', 'key create', 'key list', 'key revoke', 'trial end'],
    load: async () => (await import('./cli/identity-commands.ts')).IDENTITY_COMMANDS,
  },
  { names: ['import'], load: async () => (await import('./cli/import-command.ts')).IMPORT_COMMANDS },
  { names: ['sync'], load: async () => (await import('./cli/sync-command.ts')).SYNC_COMMANDS },
  { names: ['worker'], load: async () => (await import('./cli/worker-command.ts')).WORKER_COMMANDS },
  { names: ['org caps'], load: async () => (await import('./cli/plan-caps-command.ts')).PLAN_CAPS_COMMANDS },
  {
    names: ['login-link', 'org set-provider'],
    load: async () => (await import('./cli/account-commands.ts')).ACCOUNT_COMMANDS,
  },
  { names: ['alerts run'], load: async () => (await import('./cli/alerts-command.ts')).ALERT_COMMANDS },
];

/** The commands of the table that defines `name` (its first two words, or its first), else of every table. */
export async function commandsFor(argv: readonly string[]): Promise<Table> {
  const two = argv.slice(0, 2).join(' ');
  const table = TABLES.find((t) => t.names.includes(two)) ?? TABLES.find((t) => t.names.includes(argv[0] ?? ''));
  if (table) return table.load();
  const tables = await Promise.all(TABLES.map((t) => t.load()));
  return tables.reduce<Table>((all, t) => ({ ...all, ...t }), {});
}
