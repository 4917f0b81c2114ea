// The Windows host record of spec §2.6 (the fields a host sends, in CSV column order) and what its validation answers:
// the normalised host, the error codes of the §4.2 table, the warnings. validate.ts checks a record against it.

export const HOST_FIELDS = [
  'asset_id',
  'os_product',
  'edition_id',
  'display_version',
  'os_build',
  'architecture',
  'installation_type',
  'installed_kbs',
  'kb_source',
  'esu_enrolled',
  'collected_at',
] as const;
export type HostField = (typeof HOST_FIELDS)[number];

export type InstallationType = 'Server' | 'Server Core' | 'Client';
export type Architecture = 'x64' | 'x86' | 'arm64';

/** A host record that passed validation, normalised. Empty values are null ("unknown"). */
export interface WindowsHost {
  asset_id: string;
  os_product: string;
  edition_id: string | null;
  display_version: string | null;
  os_build: string | null;
  architecture: Architecture;
  installation_type: InstallationType | null;
  /** null = not collected; [] = collected, none found. Upper-case, de-duplicated, in submitted order. */
  installed_kbs: string[] | null;
  kb_source: string | null;
  esu_enrolled: boolean | null;
  collected_at: string;
}

export type HostErrorCode =
  | 'forbidden_field'
  | 'forbidden_value'
  | 'unknown_field'
  | 'placeholder_value'
  | 'missing_field'
  | 'bare_windows'
  | 'invalid_build'
  | 'invalid_architecture'
  | 'invalid_installation_type'
  | 'missing_installation_type'
  | 'invalid_kb'
  | 'missing_kb_source'
  | 'invalid_esu'
  | 'invalid_collected_at'
  /** Ours (the spec's table has none): a later host of one request with an asset_id an earlier accepted host has. */
  | 'duplicate_asset_id';

export interface HostError {
  code: HostErrorCode;
  field: string;
  message: string;
}

export type HostWarning = 'needs_revision';
