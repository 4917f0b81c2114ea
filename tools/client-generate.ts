// Regenerates clients/typescript/schema.ts from the app's OpenAPI document: `npm run client:generate`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLIENT_SCHEMA_FILE, renderClientSchema, servedOpenApiDocument } from './client-schema.ts';

const text = await renderClientSchema(await servedOpenApiDocument());
writeFileSync(CLIENT_SCHEMA_FILE, text);
console.log(`${fileURLToPath(CLIENT_SCHEMA_FILE)}: ${text.split('\n').length} lines`);
