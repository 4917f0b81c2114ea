// Kysely's values, from its CommonJS build. The ESM build is some 260 modules, and under the tsx loader (bin/vulnintel.js,
// the tests) each module costs a round trip to the loader's hook thread: importing it took about 400 ms against
// 150 ms for the CommonJS build, which require() loads without the hooks; every process paid it at start (the CLI,
// the server, each test file). Every value import of kysely goes through here (one copy of the library in a
// process: a RawBuilder and the Kysely that runs it must come from the same build); type imports may name 'kysely'
// directly (ESLint's no-restricted-imports holds both rules).
import { createRequire } from 'node:module';
import type * as K from 'kysely';

const kysely = createRequire(import.meta.url)('kysely') as typeof K;

export const sql: typeof K.sql = kysely.sql;
export const Kysely: typeof K.Kysely = kysely.Kysely;
export const PostgresDialect: typeof K.PostgresDialect = kysely.PostgresDialect;
