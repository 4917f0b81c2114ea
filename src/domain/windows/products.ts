// Windows OS products as MSRC names them, keyed by ProductID (names drift between documents; IDs do not): the
// product type and the map of every product, read from the data of product-table.ts.
import { PRODUCT_ROWS } from './product-table.ts';

export type Arch = 'x64' | 'x86' | 'arm64' | 'ia64';
export type Family = 'client' | 'server';

export interface WindowsProduct {
  id: string;
  /** Display name (MSRC's current spelling, whitespace collapsed). */
  name: string;
  family: Family;
  /** Server Core installation: a separate MSRC product with identical KBs (trap 4). */
  core: boolean;
  /** Windows 10/11 and Server 2016+ are cumulative; 6.x (7, 8.1, 2008, 2012, 2012 R2) are legacy (KB lists). */
  servicing: 'cumulative' | 'legacy';
  /** "major.minor" of the OS build: 10.0, 6.3, 6.2, 6.1, 6.0. */
  major: string;
  /** CurrentBuild of the product's own version. */
  build: number;
  /** Builds that share one UBR stream with this product (trap 5); FixedBuilds must fall in them. */
  group: number[];
  arch: Arch;
  /** Key into the lifecycle table (lifecycle.ts). */
  lifecycle: string;
  /** Version label for messages, e.g. "1809", "24H2". */
  version: string;
}

export const WINDOWS_PRODUCTS: ReadonlyMap<string, WindowsProduct> = new Map(
  PRODUCT_ROWS.map(([id, name, arch, { family, major, build, lifecycle, version, group }, core = false]) => [
    id,
    {
      id,
      name,
      family,
      core,
      major,
      build,
      arch,
      lifecycle,
      version,
      servicing: major === '10.0' ? 'cumulative' : 'legacy',
      group: group ?? [build],
    } satisfies WindowsProduct,
  ]),
);
