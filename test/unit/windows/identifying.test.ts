// Identifying data in host records is refused (spec §2.6): generated identifying values in every
// text field give forbidden_value on that field, never echo the value, and real records still pass.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validateHost } from '../../../src/domain/windows/validate.ts';
import { validateSoftware } from '../../../src/domain/windows/validate-software.ts';
import {
  containsIdentifying,
  validDisplayVersion,
  validEditionId,
  validProductName,
} from '../../../src/domain/windows/identifying.ts';
import { benchHosts } from '../../../bench/windows-correlate-hosts.ts';

// The README and docs/windows-collector.md sample row, as the CSV adapter gives it.
const README_SAMPLE = {
  asset_id: '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5087538', 'KB5086096'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-06-15T08:00:00Z',
};

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const hex4 = fc.integer({ min: 1, max: 0xffff }).map((n) => n.toString(16));
const ipv6 = fc.oneof(
  fc.tuple(hex4, hex4).map(([a, b]) => `fe80::${a}:${b}`),
  fc.array(hex4, { minLength: 8, maxLength: 8 }).map((g) => g.join(':')),
  hex4.map((a) => `2001:db8::${a}`),
);
const hexByte = fc.integer({ min: 0, max: 255 }).map((n) => n.toString(16).padStart(2, '0'));
const mac = fc
  .tuple(fc.array(hexByte, { minLength: 6, maxLength: 6 }), fc.constantFrom(':', '-'))
  .map(([b, sep]) => b.join(sep));
const label = fc.stringMatching(/^[a-z][a-z0-9]{1,10}$/);
const tld = fc.constantFrom('com', 'net', 'org', 'local', 'corp', 'lan', 'de', 'internal', 'example');
const fqdn = fc.tuple(label, label, tld).map(([a, b, t]) => `${a}.${b}.${t}`);
const email = fc.tuple(label, label, tld).map(([u, d, t]) => `${u}@${d}.${t}`);
const unc = fc.tuple(label, label).map(([h, s]) => `\\\\${h}\\${s}`);
const upper = fc.stringMatching(/^[A-Z0-9]+$/);
const defaultHostname = fc.oneof(
  upper.filter((s) => s.length >= 7).map((s) => `DESKTOP-${s.slice(0, 7)}`),
  upper.filter((s) => s.length >= 8).map((s) => `LAPTOP-${s.slice(0, 8)}`),
  upper.filter((s) => s.length >= 11).map((s) => `WIN-${s.slice(0, 11)}`),
);
/** Full-width digits and dots: NFKC turns them back into an address. */
const fullWidth = (s: string) => s.replace(/[0-9.]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

const identifying = fc.oneof(
  ipv4,
  ipv4.map((ip) => `${ip}:3389`),
  ipv4.map((ip) => `${ip}/24`),
  ipv4.map((ip) => `http://${ip}/`),
  ipv4.map(fullWidth),
  ipv6,
  ipv6.map((ip) => `[${ip}]`),
  mac,
  fqdn,
  email,
  unc,
  defaultHostname,
);

const FIELDS = ['asset_id', 'os_product', 'edition_id', 'display_version', 'kb_source'] as const;

/** The identifying value alone, or inside ordinary text (free text is scanned, formatted fields are whole-value). */
const placed = fc
  .tuple(
    identifying,
    fc.constantFrom('', 'collected on ', 'Windows Server 2019 '),
    fc.constantFrom('', ' via WinRM', ' Datacenter'),
  )
  .map(([v, pre, post]) => ({ v, text: `${pre}${v}${post}` }));

function forbidden(record: Record<string, unknown>, field: string) {
  const r = validateHost(record);
  assert.equal(r.ok, false, `${field}=${JSON.stringify(record[field])} was accepted`);
  if (r.ok) return;
  const e = r.errors.find((x) => x.field === field);
  assert.ok(e, `no error on ${field}: ${JSON.stringify(r.errors)}`);
  assert.equal(e.code, 'forbidden_value');
  return r;
}

describe('identifying values are refused in every text field', () => {
  test('property: a generated IP, MAC, FQDN, e-mail, UNC path or default host name in any field → forbidden_value, never echoed', () => {
    fc.assert(
      fc.property(placed, fc.constantFrom(...FIELDS), ({ v, text }, field) => {
        const record = { ...README_SAMPLE, [field]: text };
        const r = forbidden(record, field)!;
        const out = JSON.stringify(r);
        assert.ok(!out.includes(v) && !out.includes(text.trim()), 'the refused value must not be echoed');
        if (field === 'asset_id') assert.equal(r.asset_id, null);
      }),
      { numRuns: 400 },
    );
  });

  test('the values reported by the reliability probe are refused as asset_id', () => {
    for (const v of [
      '10.1.2.3:3389',
      '10.1.2.3/24',
      '[fe80::1]',
      'http://10.0.0.5/',
      '１０．１．２．３',
      'srv.plant4.example.com',
      'ops@example.com',
      '\\\\fileserver\\share',
    ]) {
      forbidden({ ...README_SAMPLE, asset_id: v }, 'asset_id');
    }
  });

  test('a DESKTOP-XXXXXXX hostname as asset_id is refused (and WIN-/LAPTOP- defaults)', () => {
    forbidden({ ...README_SAMPLE, asset_id: 'DESKTOP-7G3K2QF' }, 'asset_id');
    forbidden({ ...README_SAMPLE, asset_id: 'desktop-7g3k2qf' }, 'asset_id');
    forbidden({ ...README_SAMPLE, asset_id: 'LAPTOP-4J8PQ2ZA' }, 'asset_id');
    forbidden({ ...README_SAMPLE, asset_id: 'WIN-3K9D2M7Q1RT' }, 'asset_id');
    // The same shape without the default prefix is an ordinary scrubbed identifier.
    assert.equal(validateHost({ ...README_SAMPLE, asset_id: 'ASSET-7G3K2QF' }).ok, true);
  });

  test('values stored inside kb_source, display_version, os_product and edition_id by the probe are refused', () => {
    forbidden({ ...README_SAMPLE, kb_source: 'Get-HotFix on 10.20.30.40' }, 'kb_source');
    forbidden({ ...README_SAMPLE, kb_source: 'wsus.corp.example.com report' }, 'kb_source');
    forbidden({ ...README_SAMPLE, kb_source: 'export from \\\\nas01\\it\\kbs' }, 'kb_source');
    forbidden({ ...README_SAMPLE, kb_source: 'sent by admin@example.com' }, 'kb_source');
    forbidden({ ...README_SAMPLE, display_version: 'DESKTOP-7G3K2QF' }, 'display_version');
    forbidden({ ...README_SAMPLE, display_version: '1809 plant 4' }, 'display_version');
    forbidden({ ...README_SAMPLE, os_product: 'Windows Server 2019 Datacenter (Acme Plant 4)' }, 'os_product');
    forbidden({ ...README_SAMPLE, os_product: 'Windows Server 2019 on srv01.example.com' }, 'os_product');
    forbidden({ ...README_SAMPLE, edition_id: 'ServerDatacenter-HMI01' }, 'edition_id');
    forbidden({ ...README_SAMPLE, edition_id: '10.1.2.3' }, 'edition_id');
  });

  test('a lone surrogate or a NUL in a field is refused before anything can store it', () => {
    forbidden({ ...README_SAMPLE, kb_source: 'Get-HotFix\ud800' }, 'kb_source');
    forbidden({ ...README_SAMPLE, asset_id: 'abc\udc00def' }, 'asset_id');
    forbidden({ ...README_SAMPLE, os_product: 'Windows\u0000 Server 2019' }, 'os_product');
    const sw = validateSoftware(
      [{ asset_id: README_SAMPLE.asset_id, name: 'Tool\ud83d', publisher: '', version: '' }],
      new Set([README_SAMPLE.asset_id]),
    );
    assert.equal(sw.stored.length, 0);
    assert.equal(sw.rejected[0].errors[0].code, 'forbidden_value');
    assert.equal(sw.rejected[0].errors[0].field, 'name');
  });
});

describe('real records still pass', () => {
  test('the README sample and every bench host are accepted unchanged', () => {
    for (const h of [README_SAMPLE, ...benchHosts()]) {
      const r = validateHost(h);
      assert.equal(r.ok, true, JSON.stringify(r));
      if (r.ok) {
        assert.equal(r.host.asset_id, h.asset_id);
        assert.equal(r.host.os_product, h.os_product);
      }
    }
  });

  test('ProductName, EditionID and DisplayVersion forms of windows-engine.md §3.1 are accepted', () => {
    for (const p of [
      'Windows 10 Pro',
      'Windows 10 Enterprise LTSC 2019',
      'Windows 10 Enterprise 2016 LTSB',
      'Windows 10 IoT Enterprise LTSC 2021',
      'Windows Server 2019 Datacenter',
      'Windows Server Datacenter',
      'Windows Server 2022 Datacenter: Azure Edition',
      'Windows 7 Professional',
      'Windows Server 2008 R2 Enterprise',
      'Windows 8.1 Pro',
      'Windows 10 Pro for Workstations',
      'Microsoft Windows Server 2012 R2 Standard',
      'Windows',
      'Azure Stack HCI',
      'Windows Server 2019 Standard Evaluation',
      'Windows 11 Enterprise multi-session',
    ]) {
      assert.ok(validProductName(p), p);
    }
    for (const e of [
      'Core',
      'CoreN',
      'CoreSingleLanguage',
      'CoreCountrySpecific',
      'Professional',
      'ProfessionalN',
      'ProfessionalWorkstation',
      'ProfessionalEducation',
      'Education',
      'EducationN',
      'Enterprise',
      'EnterpriseN',
      'EnterpriseS',
      'EnterpriseSN',
      'IoTEnterprise',
      'IoTEnterpriseS',
      'ServerStandard',
      'ServerDatacenter',
      'ServerStandardEval',
      'ServerDatacenterEval',
      'ServerTurbine',
      'ServerTurbineCor',
      'ServerAzureStackHCICor',
      'ServerRdsh',
      'EnterpriseG',
      'ServerDatacenterACor',
      'ServerStandardACor',
    ]) {
      assert.ok(validEditionId(e), e);
    }
    for (const d of ['1507', '1511', '1607', '1809', '2004', '2009', '20H2', '21H2', '22H2', '24H2', '25H2'])
      assert.ok(validDisplayVersion(d), d);
    for (const k of [
      'Get-HotFix',
      'WMI Win32_QuickFixEngineering',
      'dism.exe /online /get-packages',
      'Get-WindowsUpdateLog at 08:00:00',
      'PSWindowsUpdate Get-WUHistory',
    ]) {
      assert.equal(containsIdentifying(k), false, k);
    }
  });
});
