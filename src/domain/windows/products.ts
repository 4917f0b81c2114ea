// Windows OS products as MSRC names them, keyed by ProductID (names drift between documents; IDs do not).
// Source: shared/docs/windows-engine.md §3.2, checked against the ProductTree of all 190 CVRF documents.

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

const G_19041 = [19041, 19042, 19043, 19044, 19045];
const G_22621 = [22621, 22631];
const G_26100_CLIENT = [26100, 26200];

type Row = [id: string, name: string, family: Family, core: boolean, major: string, build: number, arch: Arch, lifecycle: string, version: string, group?: number[]];

const ROWS: Row[] = [
  // Windows 10 / 11 clients
  ['10729', 'Windows 10 for 32-bit Systems', 'client', false, '10.0', 10240, 'x86', 'w10-1507', '1507'],
  ['10735', 'Windows 10 for x64-based Systems', 'client', false, '10.0', 10240, 'x64', 'w10-1507', '1507'],
  ['10789', 'Windows 10 Version 1511 for 32-bit Systems', 'client', false, '10.0', 10586, 'x86', 'w10-1511', '1511'],
  ['10788', 'Windows 10 Version 1511 for x64-based Systems', 'client', false, '10.0', 10586, 'x64', 'w10-1511', '1511'],
  ['10852', 'Windows 10 Version 1607 for 32-bit Systems', 'client', false, '10.0', 14393, 'x86', 'w10-1607', '1607'],
  ['10853', 'Windows 10 Version 1607 for x64-based Systems', 'client', false, '10.0', 14393, 'x64', 'w10-1607', '1607'],
  ['10951', 'Windows 10 Version 1703 for 32-bit Systems', 'client', false, '10.0', 15063, 'x86', 'w10-1703', '1703'],
  ['10952', 'Windows 10 Version 1703 for x64-based Systems', 'client', false, '10.0', 15063, 'x64', 'w10-1703', '1703'],
  ['11453', 'Windows 10 Version 1709 for 32-bit Systems', 'client', false, '10.0', 16299, 'x86', 'w10-1709', '1709'],
  ['11454', 'Windows 10 Version 1709 for x64-based Systems', 'client', false, '10.0', 16299, 'x64', 'w10-1709', '1709'],
  ['11583', 'Windows 10 Version 1709 for ARM64-based Systems', 'client', false, '10.0', 16299, 'arm64', 'w10-1709', '1709'],
  ['11497', 'Windows 10 Version 1803 for 32-bit Systems', 'client', false, '10.0', 17134, 'x86', 'w10-1803', '1803'],
  ['11498', 'Windows 10 Version 1803 for x64-based Systems', 'client', false, '10.0', 17134, 'x64', 'w10-1803', '1803'],
  ['11563', 'Windows 10 Version 1803 for ARM64-based Systems', 'client', false, '10.0', 17134, 'arm64', 'w10-1803', '1803'],
  ['11568', 'Windows 10 Version 1809 for 32-bit Systems', 'client', false, '10.0', 17763, 'x86', 'w10-1809', '1809'],
  ['11569', 'Windows 10 Version 1809 for x64-based Systems', 'client', false, '10.0', 17763, 'x64', 'w10-1809', '1809'],
  ['11570', 'Windows 10 Version 1809 for ARM64-based Systems', 'client', false, '10.0', 17763, 'arm64', 'w10-1809', '1809'],
  ['11644', 'Windows 10 Version 1903 for 32-bit Systems', 'client', false, '10.0', 18362, 'x86', 'w10-1903', '1903'],
  ['11645', 'Windows 10 Version 1903 for x64-based Systems', 'client', false, '10.0', 18362, 'x64', 'w10-1903', '1903'],
  ['11646', 'Windows 10 Version 1903 for ARM64-based Systems', 'client', false, '10.0', 18362, 'arm64', 'w10-1903', '1903'],
  ['11712', 'Windows 10 Version 1909 for 32-bit Systems', 'client', false, '10.0', 18363, 'x86', 'w10-1909', '1909'],
  ['11713', 'Windows 10 Version 1909 for x64-based Systems', 'client', false, '10.0', 18363, 'x64', 'w10-1909', '1909'],
  ['11714', 'Windows 10 Version 1909 for ARM64-based Systems', 'client', false, '10.0', 18363, 'arm64', 'w10-1909', '1909'],
  ['11766', 'Windows 10 Version 2004 for 32-bit Systems', 'client', false, '10.0', 19041, 'x86', 'w10-2004', '2004', G_19041],
  ['11768', 'Windows 10 Version 2004 for x64-based Systems', 'client', false, '10.0', 19041, 'x64', 'w10-2004', '2004', G_19041],
  ['11767', 'Windows 10 Version 2004 for ARM64-based Systems', 'client', false, '10.0', 19041, 'arm64', 'w10-2004', '2004', G_19041],
  ['11801', 'Windows 10 Version 20H2 for 32-bit Systems', 'client', false, '10.0', 19042, 'x86', 'w10-20h2', '20H2', G_19041],
  ['11800', 'Windows 10 Version 20H2 for x64-based Systems', 'client', false, '10.0', 19042, 'x64', 'w10-20h2', '20H2', G_19041],
  ['11802', 'Windows 10 Version 20H2 for ARM64-based Systems', 'client', false, '10.0', 19042, 'arm64', 'w10-20h2', '20H2', G_19041],
  ['11898', 'Windows 10 Version 21H1 for 32-bit Systems', 'client', false, '10.0', 19043, 'x86', 'w10-21h1', '21H1', G_19041],
  ['11896', 'Windows 10 Version 21H1 for x64-based Systems', 'client', false, '10.0', 19043, 'x64', 'w10-21h1', '21H1', G_19041],
  ['11897', 'Windows 10 Version 21H1 for ARM64-based Systems', 'client', false, '10.0', 19043, 'arm64', 'w10-21h1', '21H1', G_19041],
  ['11929', 'Windows 10 Version 21H2 for 32-bit Systems', 'client', false, '10.0', 19044, 'x86', 'w10-21h2', '21H2', G_19041],
  ['11931', 'Windows 10 Version 21H2 for x64-based Systems', 'client', false, '10.0', 19044, 'x64', 'w10-21h2', '21H2', G_19041],
  ['11930', 'Windows 10 Version 21H2 for ARM64-based Systems', 'client', false, '10.0', 19044, 'arm64', 'w10-21h2', '21H2', G_19041],
  ['12099', 'Windows 10 Version 22H2 for 32-bit Systems', 'client', false, '10.0', 19045, 'x86', 'w10-22h2', '22H2', G_19041],
  ['12097', 'Windows 10 Version 22H2 for x64-based Systems', 'client', false, '10.0', 19045, 'x64', 'w10-22h2', '22H2', G_19041],
  ['12098', 'Windows 10 Version 22H2 for ARM64-based Systems', 'client', false, '10.0', 19045, 'arm64', 'w10-22h2', '22H2', G_19041],
  ['11926', 'Windows 11 version 21H2 for x64-based Systems', 'client', false, '10.0', 22000, 'x64', 'w11-21h2', '21H2'],
  ['11927', 'Windows 11 version 21H2 for ARM64-based Systems', 'client', false, '10.0', 22000, 'arm64', 'w11-21h2', '21H2'],
  ['12086', 'Windows 11 Version 22H2 for x64-based Systems', 'client', false, '10.0', 22621, 'x64', 'w11-22h2', '22H2', G_22621],
  ['12085', 'Windows 11 Version 22H2 for ARM64-based Systems', 'client', false, '10.0', 22621, 'arm64', 'w11-22h2', '22H2', G_22621],
  ['12243', 'Windows 11 Version 23H2 for x64-based Systems', 'client', false, '10.0', 22631, 'x64', 'w11-23h2', '23H2', G_22621],
  ['12242', 'Windows 11 Version 23H2 for ARM64-based Systems', 'client', false, '10.0', 22631, 'arm64', 'w11-23h2', '23H2', G_22621],
  ['12390', 'Windows 11 Version 24H2 for x64-based Systems', 'client', false, '10.0', 26100, 'x64', 'w11-24h2', '24H2', G_26100_CLIENT],
  ['12389', 'Windows 11 Version 24H2 for ARM64-based Systems', 'client', false, '10.0', 26100, 'arm64', 'w11-24h2', '24H2', G_26100_CLIENT],
  ['20438', 'Windows 11 Version 25H2 for x64-based Systems', 'client', false, '10.0', 26200, 'x64', 'w11-25h2', '25H2', G_26100_CLIENT],
  ['20437', 'Windows 11 Version 25H2 for ARM64-based Systems', 'client', false, '10.0', 26200, 'arm64', 'w11-25h2', '25H2', G_26100_CLIENT],
  ['20853', 'Windows 11 Version 26H1 for x64-based Systems', 'client', false, '10.0', 28000, 'x64', 'w11-26h1', '26H1'],
  ['20854', 'Windows 11 Version 26H1 for ARM64-based Systems', 'client', false, '10.0', 28000, 'arm64', 'w11-26h1', '26H1'],
  // Servers, cumulative
  ['10816', 'Windows Server 2016', 'server', false, '10.0', 14393, 'x64', 'ws-2016', '2016'],
  ['10855', 'Windows Server 2016 (Server Core installation)', 'server', true, '10.0', 14393, 'x64', 'ws-2016', '2016'],
  ['11466', 'Windows Server, version 1709 (Server Core Installation)', 'server', true, '10.0', 16299, 'x64', 'ws-1709', '1709'],
  ['11499', 'Windows Server, version 1803 (Server Core Installation)', 'server', true, '10.0', 17134, 'x64', 'ws-1803', '1803'],
  ['11571', 'Windows Server 2019', 'server', false, '10.0', 17763, 'x64', 'ws-2019', '2019'],
  ['11572', 'Windows Server 2019 (Server Core installation)', 'server', true, '10.0', 17763, 'x64', 'ws-2019', '2019'],
  ['11647', 'Windows Server, version 1903 (Server Core installation)', 'server', true, '10.0', 18362, 'x64', 'ws-1903', '1903'],
  ['11715', 'Windows Server, version 1909 (Server Core installation)', 'server', true, '10.0', 18363, 'x64', 'ws-1909', '1909'],
  ['11769', 'Windows Server, version 2004 (Server Core installation)', 'server', true, '10.0', 19041, 'x64', 'ws-2004', '2004', G_19041],
  ['11803', 'Windows Server, version 20H2 (Server Core Installation)', 'server', true, '10.0', 19042, 'x64', 'ws-20h2', '20H2', G_19041],
  ['11923', 'Windows Server 2022', 'server', false, '10.0', 20348, 'x64', 'ws-2022', '2022'],
  ['11924', 'Windows Server 2022 (Server Core installation)', 'server', true, '10.0', 20348, 'x64', 'ws-2022', '2022'],
  ['12244', 'Windows Server 2022, 23H2 Edition (Server Core installation)', 'server', true, '10.0', 25398, 'x64', 'ws-23h2', '23H2'],
  ['12436', 'Windows Server 2025', 'server', false, '10.0', 26100, 'x64', 'ws-2025', '2025'],
  ['12437', 'Windows Server 2025 (Server Core installation)', 'server', true, '10.0', 26100, 'x64', 'ws-2025', '2025'],
  // Legacy
  ['10047', 'Windows 7 for 32-bit Systems Service Pack 1', 'client', false, '6.1', 7601, 'x86', 'w7-sp1', '7 SP1'],
  ['10048', 'Windows 7 for x64-based Systems Service Pack 1', 'client', false, '6.1', 7601, 'x64', 'w7-sp1', '7 SP1'],
  ['10481', 'Windows 8.1 for 32-bit systems', 'client', false, '6.3', 9600, 'x86', 'w81', '8.1'],
  ['10482', 'Windows 8.1 for x64-based systems', 'client', false, '6.3', 9600, 'x64', 'w81', '8.1'],
  ['10484', 'Windows RT 8.1', 'client', false, '6.3', 9600, 'arm64', 'w81', 'RT 8.1'],
  ['9312', 'Windows Server 2008 for 32-bit Systems Service Pack 2', 'server', false, '6.0', 6003, 'x86', 'ws-2008', '2008 SP2'],
  ['10287', 'Windows Server 2008 for 32-bit Systems Service Pack 2 (Server Core installation)', 'server', true, '6.0', 6003, 'x86', 'ws-2008', '2008 SP2'],
  ['9318', 'Windows Server 2008 for x64-based Systems Service Pack 2', 'server', false, '6.0', 6003, 'x64', 'ws-2008', '2008 SP2'],
  ['9344', 'Windows Server 2008 for x64-based Systems Service Pack 2 (Server Core installation)', 'server', true, '6.0', 6003, 'x64', 'ws-2008', '2008 SP2'],
  ['10051', 'Windows Server 2008 R2 for x64-based Systems Service Pack 1', 'server', false, '6.1', 7601, 'x64', 'ws-2008r2', '2008 R2 SP1'],
  ['10049', 'Windows Server 2008 R2 for x64-based Systems Service Pack 1 (Server Core installation)', 'server', true, '6.1', 7601, 'x64', 'ws-2008r2', '2008 R2 SP1'],
  ['10378', 'Windows Server 2012', 'server', false, '6.2', 9200, 'x64', 'ws-2012', '2012'],
  ['10379', 'Windows Server 2012 (Server Core installation)', 'server', true, '6.2', 9200, 'x64', 'ws-2012', '2012'],
  ['10483', 'Windows Server 2012 R2', 'server', false, '6.3', 9600, 'x64', 'ws-2012r2', '2012 R2'],
  ['10543', 'Windows Server 2012 R2 (Server Core installation)', 'server', true, '6.3', 9600, 'x64', 'ws-2012r2', '2012 R2'],
];

export const WINDOWS_PRODUCTS: ReadonlyMap<string, WindowsProduct> = new Map(
  ROWS.map(([id, name, family, core, major, build, arch, lifecycle, version, group]) => [id, {
    id, name, family, core, major, build, arch, lifecycle, version,
    servicing: major === '10.0' ? 'cumulative' : 'legacy',
    group: group ?? [build],
  } satisfies WindowsProduct]),
);
