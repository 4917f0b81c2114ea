// Training (spec §4.4) over HTTP against PostgreSQL: the catalogue with the caller's status, the content, start and
// complete (idempotent; complete before start → 409), progress per member, unknown module → 404, roles, and the
// content files themselves (loaded at build; a broken file stops the start, naming the file and the problem).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { buildApp } from '../../src/app.ts';
import { DEFAULT_TRAINING_DIR, loadConfig } from '../../src/config.ts';
import { TRAINING_CATEGORIES } from '../../src/domain/training.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
const NOW = '2026-11-21T12:00:00.000Z';
const M1 = 'ics-ot-security-fundamentals';
const M4 = 'platform-vulnerability-triage';

before(async () => {
  t = await testApp({ now: NOW });
  org = await seedOrg(t.store, { name: 'Training Org', tier: 'professional' });
});
after(async () => {
  await t.close();
});

type H = Record<string, string>;
const get = (url: string, headers: H) => t.app.inject({ method: 'GET', url, headers });
const post = (url: string, headers: H, payload?: unknown) =>
  t.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

describe('catalogue and content', () => {
  test('five modules, one per category of the spec, in the spec order, each with the caller status', async () => {
    const r = await get('/api/v1/training/modules', org.auth);
    assert.equal(r.statusCode, 200, r.body);
    const d = r.json().data;
    assert.deepEqual(
      d.map((m: { category: string }) => m.category),
      [...TRAINING_CATEGORIES],
    );
    assert.deepEqual(
      d.map((m: { id: string }) => m.id),
      [M1, 'cve-cvss-for-ot-engineers', 'nerc-cip-compliance-essentials', M4, 'incident-response-for-ics'],
    );
    for (const [i, m] of d.entries()) {
      assert.equal(m.order, i + 1);
      assert.ok(m.estimated_minutes >= 20 && m.estimated_minutes <= 60, `${m.id}: ${m.estimated_minutes}`);
      assert.ok(m.section_count >= 5, `${m.id} has ${m.section_count} sections`);
      assert.ok(m.question_count >= 5, `${m.id} has ${m.question_count} questions`);
      assert.equal(m.status, 'not_started');
      assert.equal(m.started_at, null);
      assert.deepEqual(m._links, { self: `/api/v1/training/modules/${m.id}`, html: `/training/${m.id}` });
    }
    assert.equal(r.json().pagination.total, 5);
    // A collection pages like every list (?page was 400 UNKNOWN_PARAMETER).
    const p2 = await get('/api/v1/training/modules?per_page=2&page=2', org.auth);
    assert.equal(p2.statusCode, 200, p2.body);
    assert.deepEqual(
      p2.json().data.map((m: { id: string }) => m.id),
      d.slice(2, 4).map((m: { id: string }) => m.id),
    );
    assert.deepEqual(p2.json().pagination, {
      total: 5,
      page: 2,
      per_page: 2,
      pages: 3,
      has_next: true,
      has_prev: true,
      count: 2,
    });
  });

  test('module detail: sections as Markdown and escaped HTML, the self-check; the triage module uses our own endpoints and fields', async () => {
    const r = await get(`/api/v1/training/modules/${M4}`, org.auth);
    assert.equal(r.statusCode, 200, r.body);
    const m = r.json().data;
    assert.equal(m.title, 'Using the platform for Vulnerability Triage');
    const all = m.sections.map((s: { markdown: string }) => s.markdown).join('\n');
    for (const needle of [
      'GET /api/v1/cves',
      'kev=true',
      'bcs_min',
      'scoring.bcs',
      'scoring.epss',
      'patch_status',
      'varies_by_product',
      'POST /api/v2/assets/correlate',
      'fix_summary',
      'GET /api/v2/assets/results',
      'known_exploited_only',
      'confirmed open',
    ]) {
      assert.ok(all.includes(needle), `the triage module mentions ${needle}`);
    }
    const step1 = m.sections.find((s: { id: string }) => s.id === 'step-1-narrow-the-corpus-with-the-list-filters');
    assert.ok(step1, m.sections.map((s: { id: string }) => s.id).join(', '));
    assert.match(
      step1.html,
      /<table>\s*<thead>\s*<tr>\s*<th>Question<\/th>\s*<th>Parameters<\/th>\s*<\/tr>\s*<\/thead>/,
    );
    assert.match(step1.html, /<td><code>kev=true<\/code><\/td>/);
    assert.match(step1.html, /<pre><code>GET \/api\/v1\/cves\?vendor=siemens&amp;has_exploit=true/);
    assert.equal(m.self_check.length, 5);
    assert.match(m.self_check[1].answer, /^9\.0/);
  });

  test('the CVSS module states the vectors and scores correctly', async () => {
    const m = (await get('/api/v1/training/modules/cve-cvss-for-ot-engineers', org.auth)).json().data;
    const text = m.sections.map((s: { markdown: string }) => s.markdown).join('\n');
    assert.ok(text.includes('`CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H` = **7.5 High**'));
    assert.ok(text.includes('`CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H` = **9.8 Critical**'));
    assert.ok(
      text.includes('`CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N` scores **9.3 Critical**'),
    );
    const nerc = (await get('/api/v1/training/modules/nerc-cip-compliance-essentials', org.auth)).json().data;
    assert.ok(
      nerc.sections.some(
        (s: { title: string; markdown: string }) =>
          s.title.startsWith('CIP-007 R2') && s.markdown.includes('at least once every 35'),
      ),
    );
  });

  test('unknown module → 404 on detail, start and complete; a malformed id → 422', async () => {
    for (const r of [
      await get('/api/v1/training/modules/no-such-module', org.auth),
      await post('/api/v1/training/modules/no-such-module/start', org.auth),
      await post('/api/v1/training/modules/no-such-module/complete', org.auth),
    ]) {
      assert.equal(r.statusCode, 404, r.body);
      const e = r.json().error;
      assert.equal(e.code, 'NOT_FOUND');
      assert.equal(e.detail.resource, 'training_module');
      assert.equal(e.detail.identifier, 'no-such-module');
      assert.match(e.message, /No training module "no-such-module"/);
    }
    const bad = await get('/api/v1/training/modules/Bad_Id', org.auth);
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().error.code, 'VALIDATION_ERROR');
  });
});

describe('start, complete, progress', () => {
  test('complete before start → 409 module_not_started with a clear message; nothing stored', async () => {
    const o = await seedOrg(t.store, { name: 'Fresh learner' });
    const r = await post(`/api/v1/training/modules/${M1}/complete`, o.auth);
    assert.equal(r.statusCode, 409, r.body);
    const e = r.json().error;
    assert.equal(e.code, 'CONFLICT');
    assert.equal(e.detail.error, 'module_not_started');
    assert.equal(e.detail.module_id, M1);
    assert.equal(
      e.message,
      `Training module "${M1}" has not been started; start it first with POST /api/v1/training/modules/${M1}/start`,
    );
    assert.equal(e.action, 'fix_input');
    const rows = await t.store.db.selectFrom('training_progress').selectAll().where('org_id', '=', o.orgId).execute();
    assert.equal(rows.length, 0);
  });

  test('start and complete are idempotent: the first times stay; progress counts and percent', async () => {
    const o = await seedOrg(t.store, { name: 'Learner Org' });
    t.clock.set('2026-11-21T12:00:00Z');
    const s1 = await post(`/api/v1/training/modules/${M1}/start`, o.auth);
    assert.equal(s1.statusCode, 200, s1.body);
    assert.deepEqual(s1.json().data, {
      module_id: M1,
      title: 'ICS/OT Security Fundamentals',
      status: 'in_progress',
      started_at: '2026-11-21T12:00:00.000Z',
      completed_at: null,
    });
    t.clock.set('2026-11-21T12:05:00Z');
    const s2 = await post(`/api/v1/training/modules/${M1}/start`, o.auth, {});
    assert.equal(s2.json().data.started_at, '2026-11-21T12:00:00.000Z', 'a second start keeps the first start time');
    t.clock.set('2026-11-21T12:30:00Z');
    const c1 = await post(`/api/v1/training/modules/${M1}/complete`, o.auth);
    assert.equal(c1.statusCode, 200, c1.body);
    assert.equal(c1.json().data.status, 'completed');
    assert.equal(c1.json().data.completed_at, '2026-11-21T12:30:00.000Z');
    t.clock.set('2026-11-21T13:00:00Z');
    const c2 = await post(`/api/v1/training/modules/${M1}/complete`, o.auth);
    assert.equal(
      c2.json().data.completed_at,
      '2026-11-21T12:30:00.000Z',
      'a second complete keeps the first completion',
    );
    // Starting a completed module again does not reopen it.
    assert.equal((await post(`/api/v1/training/modules/${M1}/start`, o.auth)).json().data.status, 'completed');
    t.clock.set('2026-11-21T13:10:00Z');
    await post(`/api/v1/training/modules/${M4}/start`, o.auth);
    const p = await get('/api/v1/training/progress', o.auth);
    assert.equal(p.statusCode, 200, p.body);
    const d = p.json().data;
    assert.equal(d.total_modules, 5);
    assert.equal(d.started, 2);
    assert.equal(d.in_progress, 1);
    assert.equal(d.completed, 1);
    assert.equal(d.percent, 20);
    assert.equal(d.last_activity_at, '2026-11-21T13:10:00.000Z');
    assert.deepEqual(
      d.modules.map((m: { module_id: string; status: string }) => [m.module_id, m.status]),
      [
        [M1, 'completed'],
        ['cve-cvss-for-ot-engineers', 'not_started'],
        ['nerc-cip-compliance-essentials', 'not_started'],
        [M4, 'in_progress'],
        ['incident-response-for-ics', 'not_started'],
      ],
    );
    const list = (await get('/api/v1/training/modules', o.auth)).json().data;
    assert.deepEqual(
      list.map((m: { status: string }) => m.status),
      ['completed', 'not_started', 'not_started', 'in_progress', 'not_started'],
    );
    t.clock.set(NOW);
  });

  test('progress is per member: another member of the same organization starts from zero', async () => {
    const o = await seedOrg(t.store, { name: 'Two learners' });
    const other = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    await post(`/api/v1/training/modules/${M1}/start`, o.auth);
    const p = (await get('/api/v1/training/progress', other.auth)).json().data;
    assert.equal(p.started, 0);
    assert.equal(p.percent, 0);
    assert.equal(p.last_activity_at, null);
  });

  test('concurrent starts of one module store one row', async () => {
    const o = await seedOrg(t.store, { name: 'Racing learner' });
    const rs = await Promise.all(Array.from({ length: 8 }, () => post(`/api/v1/training/modules/${M1}/start`, o.auth)));
    assert.deepEqual(
      rs.map((r) => r.statusCode),
      Array(8).fill(200),
    );
    assert.equal(new Set(rs.map((r) => r.json().data.started_at)).size, 1);
    const rows = await t.store.db.selectFrom('training_progress').selectAll().where('org_id', '=', o.orgId).execute();
    assert.equal(rows.length, 1);
  });

  test('a viewer records their own training (self-service write) by session and by a write-scope key; a read-only key may not', async () => {
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] });
    const s = await seedSession(t.store, org.orgId, v.memberId);
    const r = await post(`/api/v1/training/modules/${M1}/start`, { ...s, origin: 'http://vulnintel.test' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((await post(`/api/v1/training/modules/${M1}/complete`, v.auth)).statusCode, 200);
    const noOrigin = await post(`/api/v1/training/modules/${M4}/start`, s);
    assert.equal(noOrigin.statusCode, 403);
    assert.equal(noOrigin.json().error.detail.error, 'origin_refused');
    const ro = await seedKey(t.store, org.orgId, v.memberId, { scopes: ['read'] });
    const refused = await post(`/api/v1/training/modules/${M4}/start`, ro.auth);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.detail.error, 'insufficient_scope');
    assert.equal((await get('/api/v1/training/modules', ro.auth)).statusCode, 200);
  });

  test('no credential → 401; partner and trial keys → their scope errors', async () => {
    assert.equal((await get('/api/v1/training/modules', {})).statusCode, 401);
    assert.equal((await post(`/api/v1/training/modules/${M1}/start`, {})).statusCode, 401);
    const p = await seedKey(t.store, org.orgId, null, { kind: 'partner', scopes: ['read'] });
    assert.equal((await get('/api/v1/training/progress', p.auth)).json().error.code, 'PARTNER_SCOPE');
    const tr = await seedKey(t.store, org.orgId, null, { kind: 'trial', expiresAt: new Date('2026-12-01T00:00:00Z') });
    assert.equal((await get('/api/v1/training/modules', tr.auth)).json().error.code, 'TRIAL_SCOPE');
  });

  test('a body other than {} or none → 422', async () => {
    const r = await post(`/api/v1/training/modules/${M1}/start`, org.auth, { score: 100 });
    assert.equal(r.statusCode, 422, r.body);
  });
});

describe('content files are validated at start', () => {
  function contentCopy() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-training-'));
    cpSync(DEFAULT_TRAINING_DIR, dir, { recursive: true });
    return dir;
  }
  async function build(dir: string) {
    const config = loadConfig({
      ...process.env,
      DATABASE_URL: t.db.url,
      VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
      VULNINTEL_TRAINING_DIR: dir,
      LOG_LEVEL: 'silent',
    });
    const app = await buildApp({ config, store: t.store });
    await app.close();
  }

  test('the shipped files are the default directory, inside the package (npm start reads them from there)', () => {
    assert.equal(DEFAULT_TRAINING_DIR, path.resolve(import.meta.dirname, '../../content/training'));
    assert.equal(readdirSync(DEFAULT_TRAINING_DIR).filter((f) => f.endsWith('.md')).length, 5);
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'));
    assert.equal(pkg.files, undefined, 'no files allow-list in package.json, so content/ ships with the package');
  });

  const broken: [string, (text: string) => string, RegExp][] = [
    ['no front matter', (s) => s.replace(/^---[\s\S]*?---\n/, ''), /missing front matter/],
    [
      'unknown category',
      (s) => s.replace('category: ICS/OT Security Fundamentals', 'category: Basics'),
      /category "Basics" is not one of/,
    ],
    [
      'minutes not a number',
      (s) => s.replace('minutes: 30', 'minutes: half an hour'),
      /minutes must be an integer from 5 to 240/,
    ],
    ['bad id', (s) => s.replace('id: ics-ot-security-fundamentals', 'id: ICS OT'), /id "ICS OT" must be lower-case/],
    [
      'self-check answer missing',
      (s) => s.replace(/\nA: Safety first[^\n]*\n/, '\n'),
      /self-check question without an answer/,
    ],
    ['no self-check', (s) => s.slice(0, s.indexOf('## Self-check')), /no "## Self-check" section/],
  ];
  for (const [label, edit, message] of broken) {
    test(`a broken module stops the start: ${label}`, async () => {
      const dir = contentCopy();
      try {
        const file = path.join(dir, '01-ics-ot-security-fundamentals.md');
        writeFileSync(file, edit(readFileSync(file, 'utf8')));
        await assert.rejects(build(dir), (e: Error) => {
          assert.equal(e.name, 'Error');
          assert.ok(e.message.startsWith(`Training module ${file}: `), e.message);
          assert.match(e.message, message);
          return true;
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test('a missing category or a duplicate id stops the start too', async () => {
    const dir = contentCopy();
    try {
      rmSync(path.join(dir, '03-nerc-cip-compliance-essentials.md'));
      await assert.rejects(build(dir), /no module for the categories: NERC CIP Compliance Essentials/);
      writeFileSync(
        path.join(dir, '06-copy.md'),
        readFileSync(path.join(dir, '01-ics-ot-security-fundamentals.md'), 'utf8'),
      );
      await assert.rejects(build(dir), /06-copy\.md: id "ics-ot-security-fundamentals" is also used by/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing directory stops the start with its path', async () => {
    await assert.rejects(
      build('/nonexistent/training'),
      /Training module \/nonexistent\/training: cannot read the training directory/,
    );
  });
});
