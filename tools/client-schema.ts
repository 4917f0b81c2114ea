// The typed client's types (clients/typescript/schema.ts) from the OpenAPI document the app serves at
// /api/openapi.json. The app is built in process and the document fetched with inject: no server listens, and no
// database is reached (the store's pool connects on a request's first query; serving the document makes none).
// The configuration is fixed here, not read from the environment, so the same tree always yields the same file.
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/app.ts';
import { openStore } from '../src/store/db.ts';

/** The committed client types. */
export const CLIENT_SCHEMA_FILE = new URL('../clients/typescript/schema.ts', import.meta.url);
/** The one command that regenerates them (package.json "client:generate" runs tools/client-generate.ts). */
export const CLIENT_GENERATE_COMMAND = 'npm run client:generate';

/**
 * The deployed defaults (the edge limit on, so its 429 is documented), with a database address nothing listens on:
 * a query would fail fast instead of reaching someone's database.
 */
const ENV = {
  DATABASE_URL: 'postgres://client-generate@127.0.0.1:1/none',
  VULNINTEL_PUBLIC_URL: 'https://vulnintel.example',
  VULNINTEL_AUTO_IMPORT: 'false',
  LOG_LEVEL: 'silent',
};

/** GET /api/openapi.json of an app built with the deployed defaults. */
export async function servedOpenApiDocument(): Promise<OpenAPI3> {
  const config = loadConfig(ENV);
  const store = openStore(config.databaseUrl!, { max: 1, connectionTimeoutMs: 1000 });
  try {
    const app = await buildApp({ config, store });
    try {
      await app.ready();
      const r = await app.inject({ method: 'GET', url: '/api/openapi.json' });
      if (r.statusCode !== 200)
        throw new Error(`GET /api/openapi.json answered ${r.statusCode}: ${r.body.slice(0, 300)}`);
      return r.json<OpenAPI3>();
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
  }
}

/** The text of clients/typescript/schema.ts for a document. */
export async function renderClientSchema(doc: OpenAPI3): Promise<string> {
  const ast = await openapiTS(doc, { silent: true });
  const header = `${COMMENT_HEADER.trimEnd()}\n// Generated from /api/openapi.json by \`${CLIENT_GENERATE_COMMAND}\` (tools/client-generate.ts);\n// test/contract/client-schema.test.ts fails when it is stale.\n\n`;
  return header + astToString(ast);
}
