// Host facts → MSRC products (windows-engine.md §3.2 "Decision procedure"), rule by rule: the build line and
// client/server decide (traps 1, 2, 4), the product name only when there is no build; every note asserted whole.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { isBareWindowsName, matchHost } from '../../../src/domain/windows/match.ts';
import type { WindowsHost } from '../../../src/domain/windows/host-record.ts';

const HOST: WindowsHost = {
  asset_id: 'm1',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: null,
  display_version: null,
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: null,
  installed_kbs: null,
  kb_source: null,
  esu_enrolled: null,
  collected_at: '2026-06-15T08:00:00Z',
};
const h = (over: Partial<WindowsHost>): WindowsHost => ({ ...HOST, ...over });
const names = (host: WindowsHost) => matchHost(host).products.map((p) => p.name);

const W10_1809 = 'Windows 10 Version 1809 for x64-based Systems';
const WS2019 = 'Windows Server 2019';
const WS2019_CORE = 'Windows Server 2019 (Server Core installation)';
const NO_BUILD_NOTE = 'no os_build: the Windows version cannot be told from the product name alone';

describe('matchHost: client or server', () => {
  test('neither edition nor installation type: every product of the build, with a note naming them', () => {
    assert.deepEqual(matchHost(h({})), {
      products: matchHost(h({})).products,
      build: { major: '10.0', build: 17763, ubr: 8755, text: '10.0.17763.8755' },
      level: 'build',
      notes: [`edition not supplied: build 10.0.17763 fits ${W10_1809}; ${WS2019}; ${WS2019_CORE}`],
    });
    assert.deepEqual(names(h({})), [W10_1809, WS2019, WS2019_CORE]);
  });

  test('installation_type decides: Client, Server (Desktop Experience) or Server Core', () => {
    assert.deepEqual(matchHost(h({ installation_type: 'Client', os_product: 'Windows 10 Enterprise' })).notes, []);
    assert.deepEqual(names(h({ installation_type: 'Client' })), [W10_1809]);
    assert.deepEqual(names(h({ installation_type: 'Server' })), [WS2019]);
    assert.deepEqual(names(h({ installation_type: 'Server Core' })), [WS2019_CORE]);
    assert.deepEqual(matchHost(h({ installation_type: 'Server Core' })).notes, []);
  });

  test('without installation_type the edition says client or server ("Server…" in any case); a server edition keeps both installations', () => {
    assert.deepEqual(names(h({ edition_id: 'Enterprise' })), [W10_1809]);
    assert.deepEqual(matchHost(h({ edition_id: 'ServerDatacenter' })).notes, [
      `edition not supplied: build 10.0.17763 fits ${WS2019}; ${WS2019_CORE}`,
    ]);
    assert.deepEqual(names(h({ edition_id: 'serverstandard' })), [WS2019, WS2019_CORE]);
  });

  test('a stored host from before the EditionID format check: only an edition opening with "Server" is a server', () => {
    // Stored hosts are evaluated again without validation (services/windows-correlation.ts): free edition text can reach here.
    assert.deepEqual(names(h({ edition_id: 'PlantServerEdition', os_product: 'Windows 10 Enterprise' })), [W10_1809]);
  });

  test('installation_type and edition disagreeing: installation_type used, with a note', () => {
    const a = matchHost(
      h({ installation_type: 'Client', edition_id: 'ServerStandard', os_product: 'Windows 10 Enterprise' }),
    );
    assert.deepEqual(
      a.products.map((p) => p.name),
      [W10_1809],
    );
    assert.deepEqual(a.notes, [
      'installation_type (Client) and edition_id disagree on client/server; installation_type used',
    ]);
    const b = matchHost(h({ installation_type: 'Server Core', edition_id: 'Enterprise' }));
    assert.deepEqual(
      b.products.map((p) => p.name),
      [WS2019_CORE],
    );
    assert.deepEqual(b.notes, [
      'installation_type (Server Core) and edition_id disagree on client/server; installation_type used',
    ]);
    // agreeing: no note
    assert.deepEqual(matchHost(h({ installation_type: 'Server', edition_id: 'ServerStandard' })).notes, []);
    assert.deepEqual(
      matchHost(h({ installation_type: 'Client', edition_id: 'Enterprise', os_product: 'Windows 10 Enterprise' }))
        .notes,
      [],
    );
  });

  test('the architecture must match the product', () => {
    assert.deepEqual(names(h({ architecture: 'arm64', installation_type: 'Client', os_product: 'Windows 10 Pro' })), [
      'Windows 10 Version 1809 for ARM64-based Systems',
    ]);
    assert.deepEqual(names(h({ architecture: 'x86', installation_type: 'Client', os_product: 'Windows 10 Pro' })), [
      'Windows 10 Version 1809 for 32-bit Systems',
    ]);
  });
});

describe('matchHost: the build', () => {
  test('four parts: level build; three parts: level revision (no UBR)', () => {
    const four = matchHost(h({ installation_type: 'Server' }));
    assert.equal(four.level, 'build');
    const three = matchHost(h({ installation_type: 'Server', os_build: '10.0.17763' }));
    assert.equal(three.level, 'revision');
    assert.deepEqual(three.build, { major: '10.0', build: 17763, ubr: null, text: '10.0.17763' });
    assert.deepEqual(
      three.products.map((p) => p.name),
      [WS2019],
    );
  });

  test('only the own build of a product matches, not another build of its servicing group', () => {
    assert.deepEqual(
      names(h({ os_build: '10.0.19045.6456', installation_type: 'Client', os_product: 'Windows 10 Pro' })),
      ['Windows 10 Version 22H2 for x64-based Systems'],
    );
    assert.deepEqual(
      names(h({ os_build: '10.0.19044.6456', installation_type: 'Client', os_product: 'Windows 10 Pro' })),
      ['Windows 10 Version 21H2 for x64-based Systems'],
    );
  });

  test('the major version must match too (6.3.17763 is no product)', () => {
    const m = matchHost(h({ os_build: '6.3.17763.1', installation_type: 'Server' }));
    assert.deepEqual(m, {
      products: [],
      build: { major: '6.3', build: 17763, ubr: 1, text: '6.3.17763.1' },
      level: 'unmapped',
      notes: ['no Microsoft product for build 6.3.17763 on x64 (server)'],
    });
  });

  test('no product for the build: unmapped, saying for which build, architecture and family', () => {
    assert.deepEqual(matchHost(h({ os_build: '10.0.12345.1' })).notes, [
      'no Microsoft product for build 10.0.12345 on x64',
    ]);
    assert.deepEqual(matchHost(h({ architecture: 'arm64', installation_type: 'Server' })).notes, [
      'no Microsoft product for build 10.0.17763 on arm64 (server)',
    ]);
    const x86 = matchHost(
      h({ architecture: 'x86', os_build: '10.0.21999.1', installation_type: 'Client', os_product: 'Windows 10 Pro' }),
    );
    assert.deepEqual(x86.notes, ['no Microsoft product for build 10.0.21999 on x86 (client)']);
    assert.equal(x86.level, 'unmapped');
  });

  test('no product from build 22000 on is "no 32-bit Windows 11" only for a 32-bit host', () => {
    assert.deepEqual(
      matchHost(h({ os_build: '10.0.23000.1', installation_type: 'Client', os_product: 'Windows 10 Pro' })).notes,
      ['no Microsoft product for build 10.0.23000 on x64 (client)'],
    );
    assert.deepEqual(
      matchHost(h({ architecture: 'arm64', os_build: '10.0.26100.1', installation_type: 'Server' })).notes,
      ['no Microsoft product for build 10.0.26100 on arm64 (server)'],
    );
  });

  test('a 32-bit host from build 22000 on: there is no 32-bit Windows 11', () => {
    for (const b of ['10.0.22000.1', '10.0.26100.4061']) {
      const m = matchHost(
        h({ architecture: 'x86', os_build: b, installation_type: 'Client', os_product: 'Windows 10 Pro' }),
      );
      assert.deepEqual(m.products, []);
      assert.equal(m.level, 'unmapped');
      assert.deepEqual(m.notes, ['there is no 32-bit Windows 11'], b);
    }
  });

  test('a disagreement note is kept in front of the unmapped reason', () => {
    assert.deepEqual(
      matchHost(h({ os_build: '10.0.12345.1', installation_type: 'Server', edition_id: 'Enterprise' })).notes,
      [
        'installation_type (Server) and edition_id disagree on client/server; installation_type used',
        'no Microsoft product for build 10.0.12345 on x64 (server)',
      ],
    );
  });
});

describe('matchHost: ProductName notes', () => {
  const client = (os_product: string, os_build: string) =>
    matchHost(h({ os_product, os_build, installation_type: 'Client', edition_id: 'Professional' }));

  test('Windows 11 reporting "Windows 10": a note from build 22000 on, naming the Windows 11 version', () => {
    assert.deepEqual(client('Windows 10 Pro', '10.0.22000.3260').notes, [
      'ProductName says Windows 10; build 22000 is Windows 11 version 21H2 (Windows 11 reports Windows 10)',
    ]);
    assert.deepEqual(client('windows 10 pro', '10.0.26100.4061').notes, [
      'ProductName says Windows 10; build 26100 is Windows 11 Version 24H2 (Windows 11 reports Windows 10)',
    ]);
    assert.deepEqual(client('Windows 10 Pro', '10.0.19045.6456').notes, []);
    assert.deepEqual(client('Windows 11 Pro', '10.0.26100.4061').notes, []);
  });

  test('no "Windows 10" note when a server product also fits the build', () => {
    const m = matchHost(h({ os_product: 'Windows 10 Pro', os_build: '10.0.26100.4061' }));
    assert.deepEqual(
      m.products.map((p) => p.name),
      [
        'Windows 11 Version 24H2 for x64-based Systems',
        'Windows Server 2025',
        'Windows Server 2025 (Server Core installation)',
      ],
    );
    assert.deepEqual(m.notes, [
      'edition not supplied: build 10.0.26100 fits Windows 11 Version 24H2 for x64-based Systems; Windows Server 2025; Windows Server 2025 (Server Core installation)',
    ]);
  });

  test('a server ProductName on a client match is noted; on a server match it is not', () => {
    assert.deepEqual(client('Windows Server 2019 Standard', '10.0.17763.8755').notes, [
      'ProductName names a server but edition/installation type say client',
    ]);
    assert.deepEqual(matchHost(h({ installation_type: 'Server' })).notes, []);
  });
});

describe('matchHost: a ProductName naming another version than the build', () => {
  test('noted, the build decides; the same version, or a name without one, is not noted', () => {
    const server = (os_product: string, os_build: string) =>
      matchHost(h({ os_product, os_build, installation_type: 'Server', edition_id: 'ServerDatacenter' }));
    const m = server('Windows Server 2019 Datacenter', '10.0.26100.4061');
    assert.deepEqual(
      m.products.map((p) => p.name),
      ['Windows Server 2025'],
    );
    assert.deepEqual(m.notes, [
      'ProductName "Windows Server 2019 Datacenter" is build 10.0.17763, but os_build is 10.0.26100 (Windows Server 2025); the build decides',
    ]);
    assert.deepEqual(server('Windows Server 2012 R2 Datacenter', '10.0.14393.8000').notes, [
      'ProductName "Windows Server 2012 R2 Datacenter" is build 6.3.9600, but os_build is 10.0.14393 (Windows Server 2016); the build decides',
    ]);
    assert.deepEqual(server('Windows Server 2019 Datacenter', '10.0.17763.8755').notes, []);
    assert.deepEqual(server('Windows Server 2012 R2 Datacenter', '6.3.9600.22000').notes, []);
    assert.deepEqual(server('Windows Server Datacenter', '10.0.20348.3000').notes, []);
  });
});

describe('matchHost: bare "Windows" (rule 4)', () => {
  test('with a build: product-level whatever the build, the note naming the products the build fits', () => {
    const m = matchHost(h({ os_product: 'Windows', installation_type: 'Server' }));
    assert.equal(m.level, 'bare_name');
    assert.deepEqual(
      m.products.map((p) => p.name),
      [WS2019],
    );
    assert.deepEqual(m.notes, [
      'os_product is only "Windows": the host stays product-level whatever the build; build 10.0.17763.8755 fits Windows Server 2019',
    ]);
    const all = matchHost(h({ os_product: ' windows ', os_build: '10.0.17763' }));
    assert.equal(all.level, 'bare_name');
    assert.deepEqual(all.notes, [
      `os_product is only "Windows": the host stays product-level whatever the build; build 10.0.17763 fits ${W10_1809}; ${WS2019}; ${WS2019_CORE}`,
    ]);
  });

  test('isBareWindowsName: "Windows" alone, any case and spacing', () => {
    assert.equal(isBareWindowsName('Windows'), true);
    assert.equal(isBareWindowsName('  WINDOWS\t'), true);
    assert.equal(isBareWindowsName('Windows 10'), false);
    assert.equal(isBareWindowsName('Microsoft Windows'), false);
    assert.equal(isBareWindowsName('xWindows'), false);
    assert.equal(isBareWindowsName('Windowsx'), false);
  });
});

describe('matchHost: no build (product name only)', () => {
  const noBuild = (os_product: string, over: Partial<WindowsHost> = {}) =>
    matchHost(h({ os_product, os_build: null, ...over }));

  test('server names: the build and version of each server release (2008 R2 before 2008, 2012 R2 before 2012)', () => {
    const table: [string, string[]][] = [
      ['Windows Server 2008 R2 Standard', ['Windows Server 2008 R2 for x64-based Systems Service Pack 1']],
      ['Windows Server 2008 Standard', ['Windows Server 2008 for x64-based Systems Service Pack 2']],
      ['Windows Server 2012 R2 Datacenter', ['Windows Server 2012 R2']],
      ['Windows Server 2012 Datacenter', ['Windows Server 2012']],
      ['Windows Server 2016 Standard', ['Windows Server 2016']],
      ['Windows Server 2019 Standard', [WS2019]],
      ['Windows Server 2022 Datacenter', ['Windows Server 2022']],
      ['Windows Server 2025 Datacenter', ['Windows Server 2025']],
    ];
    for (const [p, want] of table) {
      const m = noBuild(p, { installation_type: 'Server' });
      assert.deepEqual(
        m.products.map((x) => x.name),
        want,
        p,
      );
      assert.equal(m.level, 'no_build', p);
      assert.equal(m.build, null, p);
      assert.deepEqual(m.notes, [], p);
    }
  });

  test('client names: Windows 7 and 8.1', () => {
    assert.deepEqual(
      noBuild('Windows 7 Professional', { installation_type: 'Client' }).products.map((x) => x.name),
      ['Windows 7 for x64-based Systems Service Pack 1'],
    );
    assert.deepEqual(
      noBuild('Windows 8.1 Pro', { edition_id: 'Professional' }).products.map((x) => x.name),
      ['Windows 8.1 for x64-based systems'],
    );
  });

  test('family unknown: server and client names both tried; the build then fits every product', () => {
    const m = noBuild('Windows 8.1 Pro');
    assert.deepEqual(
      m.products.map((x) => x.name),
      [
        'Windows 8.1 for x64-based systems',
        'Windows Server 2012 R2',
        'Windows Server 2012 R2 (Server Core installation)',
      ],
    );
    assert.equal(m.level, 'no_build');
    assert.deepEqual(m.notes, [
      'edition not supplied: build 6.3.9600 fits Windows 8.1 for x64-based systems; Windows Server 2012 R2; Windows Server 2012 R2 (Server Core installation)',
    ]);
    assert.deepEqual(
      noBuild('Windows Server 2016 Standard').products.map((x) => x.name),
      [
        'Windows 10 Version 1607 for x64-based Systems',
        'Windows Server 2016',
        'Windows Server 2016 (Server Core installation)',
      ],
    );
  });

  test('a name of the other family, or a version without a table entry: nothing to match', () => {
    for (const [p, over] of [
      ['Windows Server 2019 Standard', { installation_type: 'Client' }],
      ['Windows 7 Professional', { installation_type: 'Server' }],
      ['Windows 10 Pro', {}],
    ] as [string, Partial<WindowsHost>][]) {
      assert.deepEqual(noBuild(p, over), { products: [], build: null, level: 'no_build', notes: [NO_BUILD_NOTE] }, p);
    }
    assert.deepEqual(noBuild('Windows 10 Pro', { installation_type: 'Server', edition_id: 'Enterprise' }).notes, [
      'installation_type (Server) and edition_id disagree on client/server; installation_type used',
      NO_BUILD_NOTE,
    ]);
  });

  test('a bare name without a build is not bare_name (validation refuses it; here there is no build to name)', () => {
    assert.deepEqual(noBuild('Windows'), { products: [], build: null, level: 'no_build', notes: [NO_BUILD_NOTE] });
  });
});
