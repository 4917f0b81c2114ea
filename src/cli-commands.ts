// Imports each module that registers CLI commands (one line per module).
export {};
