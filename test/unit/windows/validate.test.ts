import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { csvRowToHostRecord, validateHost } from '../../../src/domain/windows/validate.ts';
import { HOST_FIELDS } from '../../../src/domain/windows/host-record.ts';

const GOOD = {
  asset_id: 'a3f9c2e1b7d40c55',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5087538', 'kb5087538'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-06-15T08:00:00Z',
};

const codes = (rec: Record<string, unknown>) => {
  const v = validateHost(rec);
  return v.ok ? [] : v.errors.map((e) => `${e.code}:${e.field}`);
};

test('a good host is accepted and normalised (KBs upper-case, de-duplicated; empty values null)', () => {
  const v = validateHost(GOOD);
  assert.ok(v.ok);
  assert.deepEqual(v.ok && v.host.installed_kbs, ['KB5087538']);
  assert.equal(v.ok && v.host.esu_enrolled, null);
  assert.equal(v.ok && v.host.installation_type, 'Server');
  assert.deepEqual(v.ok && v.warnings, []);
});

test('every code of the validation table', () => {
  const table: [Record<string, unknown>, string[]][] = [
    [{ ...GOOD, hostname: 'PLC-GW-01' }, ['forbidden_field:hostname']],
    [{ ...GOOD, ip_address: '10.1.2.3' }, ['forbidden_field:ip_address']],
    [{ ...GOOD, serial_number: 'X' }, ['forbidden_field:serial_number']],
    [{ ...GOOD, site: 'Plant 4' }, ['forbidden_field:site']],
    [{ ...GOOD, asset_id: '10.1.2.3' }, ['forbidden_value:asset_id']],
    [{ ...GOOD, asset_id: '00:1a:2b:3c:4d:5e' }, ['forbidden_value:asset_id']],
    [{ ...GOOD, asset_id: 'scada01.plant.example.com' }, ['forbidden_value:asset_id']],
    [{ ...GOOD, asset_id: 'x'.repeat(65) }, ['forbidden_value:asset_id']],
    [{ ...GOOD, colour: 'blue' }, ['unknown_field:colour']],
    [{ ...GOOD, edition_id: 'N/A' }, ['placeholder_value:edition_id']],
    [{ ...GOOD, display_version: 'unknown' }, ['placeholder_value:display_version']],
    [{ ...GOOD, installed_kbs: ['none'] }, ['placeholder_value:installed_kbs']],
    [(({ os_product: _o, ...r }) => r)(GOOD), ['missing_field:os_product']],
    [(({ collected_at: _o, ...r }) => r)(GOOD), ['missing_field:collected_at']],
    [{ ...GOOD, os_product: 'Windows', os_build: '' }, ['bare_windows:os_product']],
    [{ ...GOOD, os_build: '10.0.17763.8755a' }, ['invalid_build:os_build']],
    [{ ...GOOD, os_build: '10.0' }, ['invalid_build:os_build']],
    [{ ...GOOD, architecture: 'amd64' }, ['invalid_architecture:architecture']],
    [{ ...GOOD, installation_type: 'Nano' }, ['invalid_installation_type:installation_type']],
    [{ ...GOOD, installation_type: '' }, ['missing_installation_type:installation_type']],
    [{ ...GOOD, installed_kbs: ['5087538'] }, ['invalid_kb:installed_kbs']],
    [{ ...GOOD, kb_source: '' }, ['missing_kb_source:kb_source']],
    [{ ...GOOD, esu_enrolled: 'maybe' }, ['invalid_esu:esu_enrolled']],
    [{ ...GOOD, collected_at: '2026-06-15 08:00' }, ['invalid_collected_at:collected_at']],
    [{ ...GOOD, collected_at: '2026-06-15T08:00:00' }, ['invalid_collected_at:collected_at']],
  ];
  for (const [rec, want] of table) assert.deepEqual(codes(rec), want, JSON.stringify(want));
});

test('KB list states: values = collected; empty with kb_source = collected, none; both empty = not collected', () => {
  const a = validateHost({ ...GOOD, installed_kbs: [], kb_source: 'Get-HotFix' });
  assert.deepEqual(a.ok && a.host.installed_kbs, []);
  const b = validateHost({ ...GOOD, installed_kbs: [], kb_source: '' });
  assert.equal(b.ok && b.host.installed_kbs, null);
  const c = validateHost((({ installed_kbs: _k, kb_source: _s, ...r }) => r)(GOOD));
  assert.equal(c.ok && c.host.installed_kbs, null);
});

test('three-part build: accepted with needs_revision', () => {
  const v = validateHost({ ...GOOD, os_build: '10.0.17763' });
  assert.deepEqual(v.ok && v.warnings, ['needs_revision']);
});

test('a refused value is never echoed back in any message', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(
        'hostname',
        'computer_name',
        'ip_address',
        'mac_address',
        'domain',
        'user_name',
        'license_key',
        'install_path',
        'customer',
      ),
      fc.string({ minLength: 8, maxLength: 30 }).map((s) => `SECRET${s.replace(/[^A-Za-z0-9]/g, 'x')}`),
      (field, secret) => {
        const v = validateHost({ ...GOOD, [field]: secret, asset_id: `${secret}.corp.example.com` });
        assert.equal(v.ok, false);
        const text = JSON.stringify(v);
        assert.ok(!text.includes(secret), text);
        assert.ok(!v.ok && v.errors.some((e) => e.code === 'forbidden_field' && e.field === field));
        assert.ok(!v.ok && v.errors.some((e) => e.code === 'forbidden_value' && e.field === 'asset_id'));
        assert.equal(!v.ok && v.asset_id, null);
      },
    ),
  );
});

test('property: any single-field corruption refuses the host with at least one error naming a field', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...HOST_FIELDS),
      fc.oneof(fc.constant('N/A'), fc.constant('-'), fc.constant('TBD'), fc.integer(), fc.constant({})),
      (field, bad) => {
        const v = validateHost({ ...GOOD, [field]: bad });
        if (v.ok) {
          // Only display_version accepts any string, and non-strings there are ignored as unknown.
          assert.ok(field === 'display_version' || field === 'kb_source', `${field} accepted ${JSON.stringify(bad)}`);
        } else {
          assert.ok(v.errors.length > 0 && v.errors.every((e) => typeof e.field === 'string' && e.message.length > 0));
        }
      },
    ),
  );
});

test('CSV row → record: installed_kbs split on ";", same validation result as JSON', () => {
  const row: Record<string, string> = {};
  for (const f of HOST_FIELDS)
    row[f] = f === 'installed_kbs' ? 'KB5087538; KB5087538' : String((GOOD as Record<string, unknown>)[f] ?? '');
  const a = validateHost(csvRowToHostRecord(row));
  const b = validateHost(GOOD);
  assert.deepEqual(a, b);
});
