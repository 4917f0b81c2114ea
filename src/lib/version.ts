import { readFileSync } from 'node:fs';

/** The `version` of a package.json text; an error when it names none. */
export function versionOf(packageJson: string): string {
  const p: unknown = JSON.parse(packageJson);
  const version = typeof p === 'object' && p !== null && 'version' in p ? p.version : undefined;
  if (typeof version !== 'string') throw new Error('package.json names no version');
  return version;
}

/** The version in package.json: health meta.version and the OpenAPI info.version. */
export const PACKAGE_VERSION = versionOf(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
