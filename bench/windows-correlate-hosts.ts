// The host mix of bench/windows-correlate.ts (shared with in-process profiling).
/**
 * 200 hosts: a realistic mix of servers and clients, each 0–3 months behind (build and KB list agree, as a
 * collector reports them); half the cumulative hosts send their KB list, every legacy host does.
 * Builds and KBs are the real 2026 LCUs and rollups of windows-engine.md §6.1.
 */
export function benchHosts(): Record<string, unknown>[] {
  type Kind = {
    product: string;
    edition: string;
    inst: string;
    prefix: string;
    levels: [string, string][];
    esu: string;
    legacy?: boolean;
  };
  const kinds: Kind[] = [
    {
      product: 'Windows Server 2019 Datacenter',
      edition: 'ServerDatacenter',
      inst: 'Server',
      prefix: '10.0.17763',
      levels: [
        ['8880', 'KB5094123'],
        ['8755', 'KB5087538'],
        ['8644', 'KB5082123'],
        ['8511', 'KB5078752'],
      ],
      esu: '',
    },
    {
      product: 'Windows Server 2019 Standard',
      edition: 'ServerStandard',
      inst: 'Server Core',
      prefix: '10.0.17763',
      levels: [
        ['8880', 'KB5094123'],
        ['8755', 'KB5087538'],
      ],
      esu: '',
    },
    {
      product: 'Windows Server 2022 Standard',
      edition: 'ServerStandard',
      inst: 'Server',
      prefix: '10.0.20348',
      levels: [
        ['5256', 'KB5094128'],
        ['5139', 'KB5087545'],
        ['5020', 'KB5082142'],
        ['4893', 'KB5078766'],
      ],
      esu: '',
    },
    {
      product: 'Windows Server 2016 Standard',
      edition: 'ServerStandard',
      inst: 'Server',
      prefix: '10.0.14393',
      levels: [
        ['9234', 'KB5094122'],
        ['9140', 'KB5087537'],
        ['9060', 'KB5082198'],
      ],
      esu: '',
    },
    {
      product: 'Windows Server 2025 Datacenter',
      edition: 'ServerDatacenter',
      inst: 'Server',
      prefix: '10.0.26100',
      levels: [
        ['32995', 'KB5094125'],
        ['32860', 'KB5087539'],
        ['32690', 'KB5082063'],
      ],
      esu: '',
    },
    {
      product: 'Windows 10 Enterprise',
      edition: 'Enterprise',
      inst: 'Client',
      prefix: '10.0.19045',
      levels: [
        ['7417', 'KB5094127'],
        ['7184', 'KB5082200'],
        ['7058', 'KB5078885'],
      ],
      esu: 'yes',
    },
    {
      product: 'Windows 10 IoT Enterprise LTSC 2021',
      edition: 'IoTEnterpriseS',
      inst: 'Client',
      prefix: '10.0.19044',
      levels: [
        ['7417', 'KB5094127'],
        ['7291', 'KB5087544'],
      ],
      esu: '',
    },
    {
      product: 'Windows 10 Pro',
      edition: 'Professional',
      inst: 'Client',
      prefix: '10.0.22631',
      levels: [
        ['7219', 'KB5093998'],
        ['6936', 'KB5082052'],
        ['6783', 'KB5078883'],
      ],
      esu: '',
    },
    {
      product: 'Windows 10 Enterprise',
      edition: 'Enterprise',
      inst: 'Client',
      prefix: '10.0.26100',
      levels: [
        ['8655', 'KB5094126'],
        ['8457', 'KB5089549'],
        ['8246', 'KB5083769'],
      ],
      esu: '',
    },
    {
      product: 'Windows Server 2012 R2 Standard',
      edition: 'ServerStandard',
      inst: 'Server',
      prefix: '6.3.9600',
      levels: [
        ['23228', 'KB5094041'],
        ['23181', 'KB5087471'],
        ['23132', 'KB5082126'],
      ],
      esu: 'yes',
      legacy: true,
    },
    {
      product: 'Windows Server 2012 R2 Datacenter',
      edition: 'ServerDatacenter',
      inst: 'Server',
      prefix: '6.3.9600',
      levels: [['20671', 'KB5020023']],
      esu: 'no',
      legacy: true,
    },
    {
      product: 'Windows Server 2012 Standard',
      edition: 'ServerStandard',
      inst: 'Server',
      prefix: '6.2.9200',
      levels: [['26132', 'KB5094042']],
      esu: 'yes',
      legacy: true,
    },
  ];
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < 200; i++) {
    const k = kinds[i % kinds.length];
    const [ubr, kb] = k.levels[Math.floor(i / kinds.length) % k.levels.length];
    const withList = k.legacy || i % 2 === 0;
    out.push({
      asset_id: `bench${String(i).padStart(4, '0')}a9f3c2d1`,
      os_product: k.product,
      edition_id: k.edition,
      display_version: '',
      os_build: `${k.prefix}.${ubr}`,
      architecture: 'x64',
      installation_type: k.inst,
      installed_kbs: withList ? [kb] : [],
      kb_source: withList ? 'Get-HotFix' : '',
      esu_enrolled: k.esu,
      collected_at: '2026-07-01T08:00:00Z',
    });
  }
  return out;
}
