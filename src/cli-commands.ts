// Imports each module that registers CLI commands (one line per module).
import './ingest/commands.ts';
import './jobs/sync-command.ts';
import './cli/identity-commands.ts';
