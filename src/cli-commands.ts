// Imports each module that registers CLI commands (one line per module).
import './cli/identity-commands.ts';
import './ingest/commands.ts';
import './jobs/sync-command.ts';
import './jobs/worker.ts';
