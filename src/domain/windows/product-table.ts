// The Windows OS products as MSRC names them, keyed by ProductID (names drift between documents; IDs do not), each
// with the release it belongs to. Source: shared/docs/windows-engine.md §3.2, checked against the ProductTree of all
// 190 CVRF documents. products.ts reads it into WINDOWS_PRODUCTS. Data only.
import type { Arch, Family } from './products.ts';

/** What the products of one release share: its family, OS version, build, UBR stream and lifecycle. */
interface Release {
  family: Family;
  /** "major.minor" of the OS build: 10.0, 6.3, 6.2, 6.1, 6.0. */
  major: string;
  /** CurrentBuild of the release. */
  build: number;
  /** Builds that share one UBR stream with this release (trap 5); absent: its own build only. */
  group?: number[];
  /** Key into the lifecycle table (lifecycle.ts). */
  lifecycle: string;
  /** Version label for messages, e.g. "1809", "24H2". */
  version: string;
}

function release(
  family: Family,
  major: string,
  build: number,
  lifecycle: string,
  version: string,
  group?: number[],
): Release {
  return { family, major, build, lifecycle, version, group };
}

const G_19041 = [19041, 19042, 19043, 19044, 19045];
const G_22621 = [22621, 22631];
const G_26100_CLIENT = [26100, 26200];

const W10_1507 = release('client', '10.0', 10240, 'w10-1507', '1507');
const W10_1511 = release('client', '10.0', 10586, 'w10-1511', '1511');
const W10_1607 = release('client', '10.0', 14393, 'w10-1607', '1607');
const W10_1703 = release('client', '10.0', 15063, 'w10-1703', '1703');
const W10_1709 = release('client', '10.0', 16299, 'w10-1709', '1709');
const W10_1803 = release('client', '10.0', 17134, 'w10-1803', '1803');
const W10_1809 = release('client', '10.0', 17763, 'w10-1809', '1809');
const W10_1903 = release('client', '10.0', 18362, 'w10-1903', '1903');
const W10_1909 = release('client', '10.0', 18363, 'w10-1909', '1909');
const W10_2004 = release('client', '10.0', 19041, 'w10-2004', '2004', G_19041);
const W10_20H2 = release('client', '10.0', 19042, 'w10-20h2', '20H2', G_19041);
const W10_21H1 = release('client', '10.0', 19043, 'w10-21h1', '21H1', G_19041);
const W10_21H2 = release('client', '10.0', 19044, 'w10-21h2', '21H2', G_19041);
const W10_22H2 = release('client', '10.0', 19045, 'w10-22h2', '22H2', G_19041);
const W11_21H2 = release('client', '10.0', 22000, 'w11-21h2', '21H2');
const W11_22H2 = release('client', '10.0', 22621, 'w11-22h2', '22H2', G_22621);
const W11_23H2 = release('client', '10.0', 22631, 'w11-23h2', '23H2', G_22621);
const W11_24H2 = release('client', '10.0', 26100, 'w11-24h2', '24H2', G_26100_CLIENT);
const W11_25H2 = release('client', '10.0', 26200, 'w11-25h2', '25H2', G_26100_CLIENT);
const W11_26H1 = release('client', '10.0', 28000, 'w11-26h1', '26H1');
const WS_2016 = release('server', '10.0', 14393, 'ws-2016', '2016');
const WS_1709 = release('server', '10.0', 16299, 'ws-1709', '1709');
const WS_1803 = release('server', '10.0', 17134, 'ws-1803', '1803');
const WS_2019 = release('server', '10.0', 17763, 'ws-2019', '2019');
const WS_1903 = release('server', '10.0', 18362, 'ws-1903', '1903');
const WS_1909 = release('server', '10.0', 18363, 'ws-1909', '1909');
const WS_2004 = release('server', '10.0', 19041, 'ws-2004', '2004', G_19041);
const WS_20H2 = release('server', '10.0', 19042, 'ws-20h2', '20H2', G_19041);
const WS_2022 = release('server', '10.0', 20348, 'ws-2022', '2022');
const WS_23H2 = release('server', '10.0', 25398, 'ws-23h2', '23H2');
const WS_2025 = release('server', '10.0', 26100, 'ws-2025', '2025');
const W7_SP1 = release('client', '6.1', 7601, 'w7-sp1', '7 SP1');
const W81 = release('client', '6.3', 9600, 'w81', '8.1');
const W81_RT = release('client', '6.3', 9600, 'w81', 'RT 8.1');
const WS_2008 = release('server', '6.0', 6003, 'ws-2008', '2008 SP2');
const WS_2008R2 = release('server', '6.1', 7601, 'ws-2008r2', '2008 R2 SP1');
const WS_2012 = release('server', '6.2', 9200, 'ws-2012', '2012');
const WS_2012R2 = release('server', '6.3', 9600, 'ws-2012r2', '2012 R2');

/** ProductID, MSRC's name (its current spelling, whitespace collapsed), architecture, release, Server Core. */
type ProductRow = [id: string, name: string, arch: Arch, release: Release, core?: boolean];

export const PRODUCT_ROWS: readonly ProductRow[] = [
  // Windows 10 / 11 clients
  ['10729', 'Windows 10 for 32-bit Systems', 'x86', W10_1507],
  ['10735', 'Windows 10 for x64-based Systems', 'x64', W10_1507],
  ['10789', 'Windows 10 Version 1511 for 32-bit Systems', 'x86', W10_1511],
  ['10788', 'Windows 10 Version 1511 for x64-based Systems', 'x64', W10_1511],
  ['10852', 'Windows 10 Version 1607 for 32-bit Systems', 'x86', W10_1607],
  ['10853', 'Windows 10 Version 1607 for x64-based Systems', 'x64', W10_1607],
  ['10951', 'Windows 10 Version 1703 for 32-bit Systems', 'x86', W10_1703],
  ['10952', 'Windows 10 Version 1703 for x64-based Systems', 'x64', W10_1703],
  ['11453', 'Windows 10 Version 1709 for 32-bit Systems', 'x86', W10_1709],
  ['11454', 'Windows 10 Version 1709 for x64-based Systems', 'x64', W10_1709],
  ['11583', 'Windows 10 Version 1709 for ARM64-based Systems', 'arm64', W10_1709],
  ['11497', 'Windows 10 Version 1803 for 32-bit Systems', 'x86', W10_1803],
  ['11498', 'Windows 10 Version 1803 for x64-based Systems', 'x64', W10_1803],
  ['11563', 'Windows 10 Version 1803 for ARM64-based Systems', 'arm64', W10_1803],
  ['11568', 'Windows 10 Version 1809 for 32-bit Systems', 'x86', W10_1809],
  ['11569', 'Windows 10 Version 1809 for x64-based Systems', 'x64', W10_1809],
  ['11570', 'Windows 10 Version 1809 for ARM64-based Systems', 'arm64', W10_1809],
  ['11644', 'Windows 10 Version 1903 for 32-bit Systems', 'x86', W10_1903],
  ['11645', 'Windows 10 Version 1903 for x64-based Systems', 'x64', W10_1903],
  ['11646', 'Windows 10 Version 1903 for ARM64-based Systems', 'arm64', W10_1903],
  ['11712', 'Windows 10 Version 1909 for 32-bit Systems', 'x86', W10_1909],
  ['11713', 'Windows 10 Version 1909 for x64-based Systems', 'x64', W10_1909],
  ['11714', 'Windows 10 Version 1909 for ARM64-based Systems', 'arm64', W10_1909],
  ['11766', 'Windows 10 Version 2004 for 32-bit Systems', 'x86', W10_2004],
  ['11768', 'Windows 10 Version 2004 for x64-based Systems', 'x64', W10_2004],
  ['11767', 'Windows 10 Version 2004 for ARM64-based Systems', 'arm64', W10_2004],
  ['11801', 'Windows 10 Version 20H2 for 32-bit Systems', 'x86', W10_20H2],
  ['11800', 'Windows 10 Version 20H2 for x64-based Systems', 'x64', W10_20H2],
  ['11802', 'Windows 10 Version 20H2 for ARM64-based Systems', 'arm64', W10_20H2],
  ['11898', 'Windows 10 Version 21H1 for 32-bit Systems', 'x86', W10_21H1],
  ['11896', 'Windows 10 Version 21H1 for x64-based Systems', 'x64', W10_21H1],
  ['11897', 'Windows 10 Version 21H1 for ARM64-based Systems', 'arm64', W10_21H1],
  ['11929', 'Windows 10 Version 21H2 for 32-bit Systems', 'x86', W10_21H2],
  ['11931', 'Windows 10 Version 21H2 for x64-based Systems', 'x64', W10_21H2],
  ['11930', 'Windows 10 Version 21H2 for ARM64-based Systems', 'arm64', W10_21H2],
  ['12099', 'Windows 10 Version 22H2 for 32-bit Systems', 'x86', W10_22H2],
  ['12097', 'Windows 10 Version 22H2 for x64-based Systems', 'x64', W10_22H2],
  ['12098', 'Windows 10 Version 22H2 for ARM64-based Systems', 'arm64', W10_22H2],
  ['11926', 'Windows 11 version 21H2 for x64-based Systems', 'x64', W11_21H2],
  ['11927', 'Windows 11 version 21H2 for ARM64-based Systems', 'arm64', W11_21H2],
  ['12086', 'Windows 11 Version 22H2 for x64-based Systems', 'x64', W11_22H2],
  ['12085', 'Windows 11 Version 22H2 for ARM64-based Systems', 'arm64', W11_22H2],
  ['12243', 'Windows 11 Version 23H2 for x64-based Systems', 'x64', W11_23H2],
  ['12242', 'Windows 11 Version 23H2 for ARM64-based Systems', 'arm64', W11_23H2],
  ['12390', 'Windows 11 Version 24H2 for x64-based Systems', 'x64', W11_24H2],
  ['12389', 'Windows 11 Version 24H2 for ARM64-based Systems', 'arm64', W11_24H2],
  ['20438', 'Windows 11 Version 25H2 for x64-based Systems', 'x64', W11_25H2],
  ['20437', 'Windows 11 Version 25H2 for ARM64-based Systems', 'arm64', W11_25H2],
  ['20853', 'Windows 11 Version 26H1 for x64-based Systems', 'x64', W11_26H1],
  ['20854', 'Windows 11 Version 26H1 for ARM64-based Systems', 'arm64', W11_26H1],
  // Servers, cumulative
  ['10816', 'Windows Server 2016', 'x64', WS_2016],
  ['10855', 'Windows Server 2016 (Server Core installation)', 'x64', WS_2016, true],
  ['11466', 'Windows Server, version 1709 (Server Core Installation)', 'x64', WS_1709, true],
  ['11499', 'Windows Server, version 1803 (Server Core Installation)', 'x64', WS_1803, true],
  ['11571', 'Windows Server 2019', 'x64', WS_2019],
  ['11572', 'Windows Server 2019 (Server Core installation)', 'x64', WS_2019, true],
  ['11647', 'Windows Server, version 1903 (Server Core installation)', 'x64', WS_1903, true],
  ['11715', 'Windows Server, version 1909 (Server Core installation)', 'x64', WS_1909, true],
  ['11769', 'Windows Server, version 2004 (Server Core installation)', 'x64', WS_2004, true],
  ['11803', 'Windows Server, version 20H2 (Server Core Installation)', 'x64', WS_20H2, true],
  ['11923', 'Windows Server 2022', 'x64', WS_2022],
  ['11924', 'Windows Server 2022 (Server Core installation)', 'x64', WS_2022, true],
  ['12244', 'Windows Server 2022, 23H2 Edition (Server Core installation)', 'x64', WS_23H2, true],
  ['12436', 'Windows Server 2025', 'x64', WS_2025],
  ['12437', 'Windows Server 2025 (Server Core installation)', 'x64', WS_2025, true],
  // Legacy
  ['10047', 'Windows 7 for 32-bit Systems Service Pack 1', 'x86', W7_SP1],
  ['10048', 'Windows 7 for x64-based Systems Service Pack 1', 'x64', W7_SP1],
  ['10481', 'Windows 8.1 for 32-bit systems', 'x86', W81],
  ['10482', 'Windows 8.1 for x64-based systems', 'x64', W81],
  ['10484', 'Windows RT 8.1', 'arm64', W81_RT],
  ['9312', 'Windows Server 2008 for 32-bit Systems Service Pack 2', 'x86', WS_2008],
  ['10287', 'Windows Server 2008 for 32-bit Systems Service Pack 2 (Server Core installation)', 'x86', WS_2008, true],
  ['9318', 'Windows Server 2008 for x64-based Systems Service Pack 2', 'x64', WS_2008],
  ['9344', 'Windows Server 2008 for x64-based Systems Service Pack 2 (Server Core installation)', 'x64', WS_2008, true],
  ['10051', 'Windows Server 2008 R2 for x64-based Systems Service Pack 1', 'x64', WS_2008R2],
  [
    '10049',
    'Windows Server 2008 R2 for x64-based Systems Service Pack 1 (Server Core installation)',
    'x64',
    WS_2008R2,
    true,
  ],
  ['10378', 'Windows Server 2012', 'x64', WS_2012],
  ['10379', 'Windows Server 2012 (Server Core installation)', 'x64', WS_2012, true],
  ['10483', 'Windows Server 2012 R2', 'x64', WS_2012R2],
  ['10543', 'Windows Server 2012 R2 (Server Core installation)', 'x64', WS_2012R2, true],
];
