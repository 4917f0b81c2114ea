// Imports each module that registers CLI commands (one line per module).
import './cli/identity-commands.ts';
