// The v1 asset correlation answers' schemas (src/http/routes/v1/asset-schemas.ts), compiled once with Ajv: a test
// checks an answer against what OpenAPI documents for it.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { CorrelateResponse, StoredResultsResponse } from '../../src/http/routes/v1/asset-schemas.ts';

const ajv = new Ajv.default({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = { correlate: ajv.compile(CorrelateResponse), stored: ajv.compile(StoredResultsResponse) };

/** Fails with Ajv's errors unless the body is a valid correlate-cves (`correlate`) or stored results (`stored`) answer. */
export function assertAnswer(kind: keyof typeof validators, body: unknown): void {
  const v = validators[kind];
  if (!v(body)) throw new Error(`not a valid ${kind} answer: ${JSON.stringify(v.errors)}`);
}
