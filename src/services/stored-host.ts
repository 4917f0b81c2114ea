// A Windows host record read back from an environment's stored results (jsonb): the record validateHost accepted,
// checked against that shape before the engine evaluates it or the inventory lists it.
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import type { HostWarning, WindowsHost } from '../domain/windows/validate.ts';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** domain/windows/validate.ts WindowsHost as JSON. */
const StoredHost = Type.Object({
  asset_id: Type.String(),
  os_product: Type.String(),
  edition_id: NullableString,
  display_version: NullableString,
  os_build: NullableString,
  architecture: Type.Union([Type.Literal('x64'), Type.Literal('x86'), Type.Literal('arm64')]),
  installation_type: Type.Union([
    Type.Literal('Server'),
    Type.Literal('Server Core'),
    Type.Literal('Client'),
    Type.Null(),
  ]),
  installed_kbs: Type.Union([Type.Array(Type.String()), Type.Null()]),
  kb_source: NullableString,
  esu_enrolled: Type.Union([Type.Boolean(), Type.Null()]),
  collected_at: Type.String(),
});

/** The stored host record; throws when it is not one validateHost could have accepted. */
export function storedHost(stored: unknown): WindowsHost {
  if (!Value.Check(StoredHost, stored))
    throw new Error('a stored Windows host record does not have the shape of a validated host');
  return stored;
}

/** The stored warnings the engine knows (validateHost's HostWarning). */
export function storedWarnings(stored: readonly string[]): HostWarning[] {
  return stored.filter((w): w is HostWarning => w === 'needs_revision');
}
