// The table of the CLI commands beyond `serve` and `migrate` (src/cli.ts), loaded only when a command other than
// `serve` runs, so the server start does not load the ingest and admin modules. A new command goes into one of
// these tables (or a new one listed here): nothing registers itself on import.
import type { Command } from './cli.ts';
import { IDENTITY_COMMANDS } from './cli/identity-commands.ts';
import { IMPORT_COMMANDS } from './ingest/commands.ts';
import { SYNC_COMMANDS } from './jobs/sync-command.ts';
import { WORKER_COMMANDS } from './jobs/worker.ts';
import { PLAN_CAPS_COMMANDS } from './cli/plan-caps-command.ts';

export const COMMANDS: Readonly<Record<string, Command>> = { ...IDENTITY_COMMANDS, ...IMPORT_COMMANDS, ...SYNC_COMMANDS, ...WORKER_COMMANDS, ...PLAN_CAPS_COMMANDS };
