// Kysely table types. Each area adds its tables by module augmentation from its own store file:
//   declare module './schema.ts' { interface Database { my_table: MyTable } }
// so no single file becomes a merge hotspot.
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  tier: string;
  status: Generated<string>;
  created_at: Timestamp;
  deactivated_at: Date | null;
}

export interface MembersTable {
  id: Generated<number>;
  org_id: number;
  email: string;
  name: string;
  role: string;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  org_id: number;
  member_id: number;
  key_hash: string;
  key_start: string;
  kind: string;
  scopes: string[];
  label: string | null;
  created_at: Timestamp;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface SessionsTable {
  id: Generated<number>;
  org_id: number;
  member_id: number;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface TrialUsageTable {
  org_id: number;
  used: ColumnType<number, number | undefined, number>;
  ended_at: Date | null;
  started_at: Timestamp;
}

export interface ApiUsageMonthlyTable {
  org_id: number;
  month: ColumnType<Date, string, string>;
  calls: ColumnType<number, number | undefined, number>;
}

export interface IngestRunsTable {
  id: Generated<number>;
  stage: string;
  source: string | null;
  status: string;
  started_at: Timestamp;
  finished_at: Date | null;
  rows: number;
  error: string | null;
}

export interface CvesTable {
  cve_id: string;
  cve_year: number;
  cve_seq: number;
  bsid: string;
  title: string;
  severity: string | null;
  cvss_score: number | null;
  bcs_score: number;
  epss_score: number | null;
  epss_percentile: number | null;
  kev_flagged: boolean;
  kev_added_at: Date | null;
  exploit_maturity: string;
  poc_available: boolean;
  has_public_exploit: boolean;
  patch_status: string;
  ics_relevant: boolean;
  ics_relevance: number;
  primary_vendor: string | null;
  primary_product: string | null;
  vendor_count: number;
  vendor_slugs: string[];
  protocols: string[];
  /** The document's affected.vendors (same order as vendor_slugs) and affected.products (migration 1320). */
  vendor_names: string[];
  product_names: string[];
  published_at: Date | null;
  modified_at: Date | null;
  enriched_at: Date;
  doc: unknown;
  doc_hash: string;
}

export interface VendorsTable {
  slug: string;
  name: string;
  aliases: ColumnType<string[], string[] | undefined, string[]>;
  cve_count: ColumnType<number, number | undefined, number>;
}

export interface Database {
  vendors: VendorsTable;
  organizations: OrganizationsTable;
  members: MembersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  trial_usage: TrialUsageTable;
  api_usage_monthly: ApiUsageMonthlyTable;
  ingest_runs: IngestRunsTable;
  cves: CvesTable;
}
