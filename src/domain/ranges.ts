// Structured affected-version data as each source states it: NVD configurations (cpeMatch with
// start/end bounds, vulnerable flags, "running on" AND nodes), CVE Record 5 `affected[]` (version, lessThan,
// lessThanOrEqual, changes[], status, defaultStatus, versionType) and CSAF product trees (product_version,
// product_version_range, product_status). Readers put these on their `CveSourceRecord.ranges`; the import stores
// them in a table indexed by vendor and product, and asset correlation matches against it. Types only here; the
// version comparator and the matching rules live beside it in domain/.

/** The source that stated a range. */
export type RangeSource = 'nvd' | 'cve5' | 'csaf';

/** What a range says about the versions it covers (CVE 5 `status`; NVD `vulnerable`; CSAF product_status). */
export type RangeStatus = 'affected' | 'unaffected' | 'unknown';

/** One end of a version range. */
export interface VersionBound {
  version: string;
  /** true: the bound itself is in the range (versionStartIncluding, versionEndIncluding, lessThanOrEqual). */
  inclusive: boolean;
}

/** One statement "these versions of this product are <status>" from one source. */
export interface AffectedRange {
  source: RangeSource;
  /** Vendor as the source names it (CNA `vendor`, CPE vendor token, CSAF vendor branch). */
  vendor: string;
  /** Product as the source names it (CNA `product`, CPE product token, CSAF product_name branch). */
  product: string;
  /** The CPE 2.3 match string when the source gives one (NVD criteria, CVE 5 / ADP `cpes`). */
  cpe: string | null;
  status: RangeStatus;
  /**
   * One exact version, or null when the statement is a range or covers every version. The CVE 5 schema's `*`
   * (all versions) and NVD's `*` / `-` version components are normalised to null with no bounds.
   */
  version: string | null;
  /** Lower bound (versionStart*; CVE 5 `version` when a lessThan* is present). null = unbounded. */
  start: VersionBound | null;
  /** Upper bound (versionEnd*; CVE 5 lessThan → exclusive, lessThanOrEqual → inclusive). null = unbounded. */
  end: VersionBound | null;
  /** CVE 5 `versionType` (semver, custom, git, rpm, …), null when unstated. */
  versionType: string | null;
  /** CVE 5 `changes[]`: from version `at` on, the status becomes `status` (ordered as the source lists them). */
  changes: { at: string; status: RangeStatus }[];
  /** CVE 5 `defaultStatus` of the affected entry: the status of versions no statement covers. */
  defaultStatus: RangeStatus | null;
  /** A version the source states fixes the product (CSAF `fixed`, a CVE 5 `unaffected` boundary), else null. */
  fixedIn: string | null;
  /**
   * NVD "running on" AND configurations: the range applies only when the asset runs on one of these platform CPE
   * match strings (the configuration's non-vulnerable nodes). null = applies everywhere.
   */
  runningOn: string[] | null;
  /**
   * The source's own words when they are not machine-readable (a CSAF free-text range such as
   * "V2.0 and later, prior to V2.9.2" that could not be parsed with certainty). When set, `start`/`end` are null
   * and matching answers "needs review" for this product.
   */
  text: string | null;
  /**
   * A condition the source states in words for the range ("if VP6E5000 is installed", "affected only if the CAMS
   * function is used"), quoted as written: a version inside the range answers needs_review with it. Absent or null
   * when there is none.
   */
  condition?: string | null;
  /**
   * The package whose builds the versions are, when it is not the product itself: a CVE 5 `packageName` beside a
   * `product` with `versionType: "rpm"` (Red Hat names "Red Hat Enterprise Linux 9" the product and states the
   * builds of its keylime package). Absent when the versions are the product's own.
   */
  package?: string;
}
