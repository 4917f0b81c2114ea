// The formats and the scan for identifying data (identifying.ts), one rule at a time with a case on each side of
// every boundary: control-character ranges, the time-versus-IPv6 rule, file extensions versus domain names, the
// 120-character ProductName, the ReleaseId months.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  badText,
  containsIdentifying,
  identifyingAssetId,
  innerBreak,
  normalizeText,
  validDisplayVersion,
  validEditionId,
  validProductName,
} from '../../../src/domain/windows/identifying.ts';

describe('normalizeText and badText', () => {
  test('normalizeText: NFKC (full-width, ligatures), then trimmed', () => {
    assert.equal(normalizeText('  \uFF21\uFF22\uFF23-\uFF11  '), 'ABC-1');
    assert.equal(normalizeText('\uFB01x'), 'fix');
    assert.equal(normalizeText('\u2168'), 'IX');
    assert.equal(normalizeText('a b'), 'a b');
  });

  test('badText: C0 controls except tab, LF and CR; DEL and C1; lone surrogates', () => {
    for (const c of [
      '\u0000',
      '\u0001',
      '\u0008',
      '\u000b',
      '\u000c',
      '\u000e',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u009f',
    ]) {
      assert.equal(badText(`a${c}b`), true, c.charCodeAt(0).toString(16));
    }
    for (const c of ['\t', '\n', '\r', ' ', '~', '\u00a0', '\u00e9'])
      assert.equal(badText(`a${c}b`), false, c.charCodeAt(0).toString(16));
    assert.equal(badText('a\ud800b'), true);
    assert.equal(badText('a\udc00'), true);
    assert.equal(badText('a\ud83d\ude00b'), false);
    assert.equal(badText(''), false);
    // Bidirectional controls reorder what is shown; the marks U+200E and U+200F stay allowed.
    for (const c of ['\u202a', '\u202e', '\u2066', '\u2069'])
      assert.equal(badText(`a${c}b`), true, c.charCodeAt(0).toString(16));
    for (const c of ['\u2029', '\u206a', '\u200e', '\u200f'])
      assert.equal(badText(`a${c}b`), false, c.charCodeAt(0).toString(16));
  });

  test('innerBreak: a tab, LF, CR or Unicode line/paragraph separator inside the trimmed value; not around it', () => {
    for (const v of ['a\tb', 'a\nb', 'a\rb', ' a \t b ', 'a\u2028b', 'a\u2029b'])
      assert.equal(innerBreak(v), true, JSON.stringify(v));
    for (const v of ['ab', '\ta b\r\n', '\n', '', 'a\u000bb', '\u2028ab\u2029'])
      assert.equal(innerBreak(v), false, JSON.stringify(v));
  });
});

describe('containsIdentifying', () => {
  test('IPv4 addresses, alone or in text; not version numbers of three parts', () => {
    assert.equal(containsIdentifying('10.1.2.3'), true);
    assert.equal(containsIdentifying('export from 192.168.0.1 daily'), true);
    assert.equal(containsIdentifying('version 10.0.17763'), false);
  });

  test('IPv6: with "::", with a hex letter, or five colons and more; a time of day is not an address', () => {
    assert.equal(containsIdentifying('fe80::1'), true);
    assert.equal(containsIdentifying('1::2'), true);
    assert.equal(containsIdentifying('ab:cd:ef'), true);
    assert.equal(containsIdentifying('1:2:3:4:5:6'), true);
    assert.equal(containsIdentifying('1:2:3:4:5'), false);
    assert.equal(containsIdentifying('Get-HotFix at 08:00:00'), false);
    assert.equal(containsIdentifying('12:30'), false);
  });

  test('MAC addresses (colon, dash, Cisco dot form)', () => {
    assert.equal(containsIdentifying('00:1a:2b:3c:4d:5e'), true);
    assert.equal(containsIdentifying('00-1A-2B-3C-4D-5E'), true);
    assert.equal(containsIdentifying('001a.2b3c.4d5e'), true);
  });

  test('e-mail addresses, UNC and drive paths, URLs', () => {
    assert.equal(containsIdentifying('ops@plant.de'), true);
    assert.equal(containsIdentifying('ops@plant.d'), false);
    assert.equal(containsIdentifying('\\\\nas01'), true);
    assert.equal(containsIdentifying('//nas01/kbs'), true);
    assert.equal(containsIdentifying('C:\\Windows'), true);
    assert.equal(containsIdentifying('from d:/export'), true);
    assert.equal(containsIdentifying('https://x'), true);
    assert.equal(containsIdentifying('method: Get-HotFix'), false);
  });

  test("Windows' default computer names: 7 to 11 characters after the prefix", () => {
    assert.equal(containsIdentifying('DESKTOP-7G3K2QF'), true);
    assert.equal(containsIdentifying('DESKTOP-7G3K2Q'), false);
    assert.equal(containsIdentifying('WIN-3K9D2M7Q1RT'), true);
    assert.equal(containsIdentifying('WIN-3K9D2M7Q1RTX'), false);
  });

  test('domain names, but not file names with a known extension (in any case), wherever they stand in the text', () => {
    assert.equal(containsIdentifying('wsus.plant.example'), true);
    assert.equal(containsIdentifying('plc01.local'), true);
    assert.equal(containsIdentifying('setup.exe'), false);
    assert.equal(containsIdentifying('SETUP.EXE and Install.MSU'), false);
    assert.equal(containsIdentifying('dism.exe then wsus.corp'), true);
    assert.equal(containsIdentifying('kbs.csv'), false);
  });

  test('the scan works on the NFKC form (full-width digits and dots)', () => {
    assert.equal(containsIdentifying('\uFF11\uFF10\uFF0E\uFF11\uFF0E\uFF12\uFF0E\uFF13'), true);
  });
});

describe('identifyingAssetId', () => {
  test('a bare 12-hex-digit MAC, a name ending with a dot, or anything the scan finds', () => {
    assert.equal(identifyingAssetId('001A2B3C4D5E'), true);
    assert.equal(identifyingAssetId(' 001a2b3c4d5e '), true);
    assert.equal(identifyingAssetId('001A2B3C4D5'), false);
    assert.equal(identifyingAssetId('001A2B3C4D5E6'), false);
    assert.equal(identifyingAssetId('001A2B3C4D5G'), false);
    assert.equal(identifyingAssetId('plc01.'), true);
    assert.equal(identifyingAssetId('plc01. '), true);
    assert.equal(identifyingAssetId('plc.01'), false);
    assert.equal(identifyingAssetId('10.1.2.3'), true);
    assert.equal(identifyingAssetId('5f0c1e9a7b2d44e08c3a6f1d2b9e7a41'), false);
  });

  test('a labelled serial number: the label, a separator, a number holding a digit', () => {
    // Each of these is refused as an asset_id, never stored.
    for (const v of [
      'S/N 1234567',
      's/n:1234567',
      'S/N1234567',
      'SN: 5CG1234XYZ',
      'sn=5CG1234XYZ',
      'serial 5CG1234XYZ',
      'Serial: 5CG1234XYZ',
      'SerialNumber=5CG1234XYZ',
      'serial_no 4711',
      'Serial No. 4711',
      'serial# 4711',
      'rtu-7 serial 4711',
      'SN 1234',
    ]) {
      assert.equal(identifyingAssetId(v), true, v);
    }
    for (const v of [
      'serial-gw-1',
      'serial gateway 3',
      'serial1',
      'sn-1234',
      'snmp: 4711',
      'plcsn=4711',
      'serial: abc',
      'rtu-serial-no-7',
      'S/N',
    ]) {
      assert.equal(identifyingAssetId(v), false, v);
    }
  });
});

describe('validProductName', () => {
  test('at most 120 characters (after trimming)', () => {
    const at = `Windows Server${' Pro'.repeat(25)} 10 10`;
    assert.equal(at.length, 120);
    assert.equal(validProductName(at), true);
    assert.equal(validProductName(`  ${at}  `), true);
    assert.equal(validProductName(`${at}0`), false);
  });

  test('must open with a product family (Windows, Hyper-V Server, Azure Stack HCI, Azure Local), optionally after "Microsoft"', () => {
    for (const p of [
      'Windows 10 Pro',
      'Microsoft Windows Server 2012 R2 Standard',
      'Hyper-V Server 2019',
      'Microsoft Hyper-V Server 2016',
      'Azure Stack HCI',
      'Azure Local',
      'windows 11 pro',
    ]) {
      assert.equal(validProductName(p), true, p);
    }
    for (const p of ['Server 2019 Windows', 'WindowsServer 2019', 'Pro Windows 10', 'Ubuntu 22.04'])
      assert.equal(validProductName(p), false, p);
  });

  test('®, ™, colon, parentheses, comma and slash separate words; every word must be known or a number', () => {
    for (const p of [
      'Windows® 10 Pro',
      'Windows Server 2022 Datacenter: Azure Edition',
      'Windows 10 Pro (x64)',
      'Windows 10 Pro,Education',
      'Windows 10 Pro/Education',
      'Windows Server 2019 Datacenter(Evaluation)',
      'WINDOWS 10 ENTERPRISE LTSC 2021',
      'Windows 10 Version 22H2',
      'Windows 7 Ultimate SP1',
      'Windows 7 Professional 64-bit',
      'Windows Server 2008 R2 Standard 32bit',
    ]) {
      assert.equal(validProductName(p), true, p);
    }
    for (const p of [
      'Windows 10 Pro Plant4',
      'Windows 10 Pro [x64]',
      'Windows 10 Pro - HMI',
      'Windows 10 Pro 12345',
      'Windows 10 Pro 22H3',
      'Windows Server 2019 Datacenter;',
    ]) {
      assert.equal(validProductName(p), false, p);
    }
    // NFKC spells ™ as "TM": glued to "Windows" it no longer opens with a product family
    assert.equal(validProductName('Windows™ 10 Pro'), false);
  });
});

describe('validEditionId and validDisplayVersion', () => {
  test('EditionID: whole value only, after NFKC and trimming', () => {
    assert.equal(validEditionId(' ServerStandard '), true);
    assert.equal(validEditionId('serverstandard'), true);
    assert.equal(validEditionId('ServerStandardX'), false);
    assert.equal(validEditionId('XServerStandard'), false);
    assert.equal(validEditionId('\uFF25nterprise'), true);
  });

  test('DisplayVersion: two digits, H, 1 or 2', () => {
    for (const d of ['20H2', '22h1', ' 24H2 ', '99H1']) assert.equal(validDisplayVersion(d), true, d);
    for (const d of ['22H3', '22H0', '2H2', '222H2', '22H22', 'x22H2', '22H2x', 'H2'])
      assert.equal(validDisplayVersion(d), false, d);
  });

  test('ReleaseId: years 15 to 20, months 01 to 12', () => {
    for (const d of ['1501', '1507', '1809', '1912', '2001', '2009', '2012'])
      assert.equal(validDisplayVersion(d), true, d);
    for (const d of ['1500', '1513', '1409', '2109', '1800', '18090', '809', '1809x'])
      assert.equal(validDisplayVersion(d), false, d);
  });
});
