import { readFileSync } from 'node:fs';

/** The version in package.json: health meta.version and the OpenAPI info.version. */
export const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
