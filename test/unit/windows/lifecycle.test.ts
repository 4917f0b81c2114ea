import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LIFECYCLE, editionClass, lifecycleState } from '../../../src/domain/windows/lifecycle.ts';
import { WINDOWS_PRODUCTS } from '../../../src/domain/windows/products.ts';

/** endoflife.date `releases:` entries (releaseCycle → eol, eoes) from the copied Markdown front matter. */
function releases(file: string): Map<string, { eol?: string; eoes?: string }> {
  const text = readFileSync(new URL(`../../fixtures/windows-lifecycle/${file}`, import.meta.url), 'utf8');
  const out = new Map<string, { eol?: string; eoes?: string }>();
  let cur: { eol?: string; eoes?: string } | null = null;
  for (const line of text.split('\n')) {
    const rc = /^\s*- releaseCycle: "([^"]+)"/.exec(line);
    if (rc) {
      cur = {};
      out.set(rc[1], cur);
      continue;
    }
    const kv = /^\s+(eol|eoes): (\d{4}-\d{2}-\d{2})/.exec(line);
    if (kv && cur) cur[kv[1] as 'eol' | 'eoes'] = kv[2];
  }
  return out;
}

test('the lifecycle table agrees with its endoflife.date source, row by row', () => {
  const w = releases('windows.md');
  const s = releases('windows-server.md');
  const checks: [string, string, string, 'eol' | 'eoes', Map<string, { eol?: string; eoes?: string }>][] = [
    ['w10-1809', 'ltsc', '10-1809-e-lts', 'eol', w],
    ['w10-1809', 'consumer', '10-1809-w', 'eol', w],
    ['w10-1809', 'enterprise', '10-1809-e', 'eol', w],
    ['w10-21h2', 'iot_ltsc', '10-21h2-iot-lts', 'eol', w],
    ['w10-21h2', 'ltsc', '10-21h2-e-lts', 'eol', w],
    ['w10-21h2', 'enterprise', '10-21h2-e', 'eol', w],
    ['w10-22h2', 'consumer', '10-22h2', 'eol', w],
    ['w11-23h2', 'enterprise', '11-23h2-e', 'eol', w],
    ['w11-23h2', 'consumer', '11-23h2-w', 'eol', w],
    ['w11-24h2', 'consumer', '11-24h2-w', 'eol', w],
    ['w11-24h2', 'ltsc', '11-24h2-e-lts', 'eol', w],
    ['w11-24h2', 'iot_ltsc', '11-24h2-iot-lts', 'eol', w],
    ['w11-25h2', 'enterprise', '11-25h2-e', 'eol', w],
    ['w10-1607', 'ltsc', '10-1607-e-lts', 'eol', w],
    ['w81', 'consumer', '8.1', 'eol', w],
    ['w7-sp1', 'consumer', '7-sp1', 'eol', w],
    ['ws-2012r2', 'server', '2012-r2', 'eol', s],
    ['ws-2016', 'server', '2016', 'eol', s],
    ['ws-2019', 'server', '2019', 'eol', s],
    ['ws-2022', 'server', '2022', 'eol', s],
    ['ws-2025', 'server', '2025', 'eol', s],
    ['ws-23h2', 'server', '23h2-ac', 'eol', s],
    ['ws-2008r2', 'server', '2008-r2-sp1', 'eol', s],
  ];
  for (const [key, cls, cycle, field, src] of checks) {
    const row = LIFECYCLE[key];
    const ours = (row.eol as Record<string, string>)[cls] ?? row.eol.default;
    assert.equal(ours, src.get(cycle)?.[field], `${key}/${cls} vs ${cycle}`);
  }
  assert.equal(LIFECYCLE['ws-2012r2'].esu?.default, s.get('2012-r2')?.eoes);
  assert.equal(LIFECYCLE['ws-2008r2'].esu?.default, s.get('2008-r2-sp1')?.eoes);
  assert.equal(LIFECYCLE['w10-22h2'].esu?.default, w.get('10-22h2')?.eoes);
  for (const p of WINDOWS_PRODUCTS.values()) assert.ok(LIFECYCLE[p.lifecycle], `${p.name} has a lifecycle row`);
  for (const r of Object.values(LIFECYCLE)) assert.ok(r.source.length > 0);
});

test('edition classes and the evaluation date (trap 20)', () => {
  assert.equal(editionClass('EnterpriseS'), 'ltsc');
  assert.equal(editionClass('IoTEnterpriseS'), 'iot_ltsc');
  assert.equal(editionClass('ProfessionalWorkstation'), 'consumer');
  assert.equal(editionClass('ServerTurbine'), 'server');
  assert.equal(editionClass(''), null);
  assert.equal(lifecycleState('w10-1607', 'EnterpriseS', null, '2026-10-13')!.endOfLife, false);
  assert.equal(lifecycleState('w10-1607', 'EnterpriseS', null, '2026-10-14')!.endOfLife, true);
  assert.equal(lifecycleState('w11-23h2', 'Enterprise', null, '2026-11-10')!.endOfLife, false);
  assert.equal(lifecycleState('w11-23h2', 'Enterprise', null, '2026-11-11')!.endOfLife, true);
  const noProgramme = lifecycleState('w11-23h2', 'Professional', true, '2026-01-01')!;
  assert.equal(noProgramme.endOfLife, true);
  assert.match(noProgramme.note, /no ESU programme/);
  assert.equal(lifecycleState('w10-22h2', 'Enterprise', true, '2028-10-10')!.endOfLife, false);
  assert.equal(lifecycleState('w10-22h2', 'Professional', true, '2026-10-14')!.endOfLife, true);
});
