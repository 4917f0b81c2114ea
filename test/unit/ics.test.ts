// Classification layer and category (src/domain/ics.ts; docs/enrichment.md "Classification").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyCategory, classifyLayer, icsRelevance } from '../../src/domain/ics.ts';

const layerOf = (text: string, advisory = false, icsVendor = false) => classifyLayer(icsRelevance({ text, has_cisa_ics_advisory: advisory, ics_vendor: icsVendor }));

test('layer: OT when ICS-relevant, NETWORK for network devices, otherwise OS', () => {
  assert.equal(layerOf('A command injection in the GlobalProtect feature of Palo Alto Networks PAN-OS firewall software'), 'NETWORK');
  assert.equal(layerOf('Cisco IOS XE router web UI privilege escalation'), 'NETWORK');
  assert.equal(layerOf('Windows Kernel Elevation of Privilege Vulnerability'), 'OS');
  assert.equal(layerOf('Siemens SIMATIC S7-1500 CPU denial of service', true, true), 'OT');
  assert.equal(layerOf('A firewall bypass in a Siemens RUGGEDCOM device', true, true), 'OT');
});

test('category: the first CWE with a category, else the first matching keyword, else "other"', () => {
  assert.equal(classifyCategory([787, 89], 'SQL injection'), 'memory-corruption');
  assert.equal(classifyCategory([1, 89], 'buffer overflow'), 'sql-injection');
  assert.equal(classifyCategory([9999], 'An SQL injection in the login form'), 'sql-injection');
  assert.equal(classifyCategory([], 'A crafted packet causes a denial-of-service condition'), 'denial-of-service');
  assert.equal(classifyCategory([], 'Windows Kernel Elevation of Privilege Vulnerability'), 'access-control');
  assert.equal(classifyCategory([], 'An unspecified issue'), 'other');
});
