#!/usr/bin/env node
// The `vulnintel` command: loads the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';
register();
await import('../src/cli.ts');
