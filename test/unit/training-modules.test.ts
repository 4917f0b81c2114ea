// Training modules (spec §4.4, docs/training.md): the five real module files of content/training parsed into the
// catalogue, each validation rule with its exact message and its boundary, the Markdown renderer's block rules,
// and the progress summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildCatalogue,
  moduleStatus,
  parseModule,
  renderMarkdown,
  slug,
  summarizeProgress,
  TrainingContentError,
  TRAINING_CATEGORIES,
  type ProgressRow,
  type TrainingModule,
} from '../../src/domain/training.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'content', 'training');
const files = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => ({ file: f, text: readFileSync(path.join(dir, f), 'utf8') }));

const SELF = '## Self-check\n\nQ: One?\nA: 1.\n\nQ: Two?\nA: 2.\n\nQ: Three?\nA: 3.\n';
const HEAD = 'id: m-1\ntitle: M\ncategory: NERC CIP Compliance Essentials\nminutes: 10\nsummary: s';
const mod = (o: { head?: string; body?: string; self?: string } = {}) =>
  `---\n${o.head ?? HEAD}\n---\n\n${o.body ?? '## A\na\n\n## B\nb\n\n## C\nc\n'}\n${o.self ?? SELF}`;
function fails(text: string, problem: string) {
  assert.throws(
    () => parseModule('x.md', text),
    (e: unknown) => {
      assert.ok(e instanceof TrainingContentError);
      assert.equal(e.message, `Training module x.md: ${problem}`);
      assert.equal(e.file, 'x.md');
      return true;
    },
  );
}

test('the five module files of content/training parse into the catalogue, in the spec order of the categories', () => {
  const parsed = files().map(({ file, text }) => ({ file, module: parseModule(file, text) }));
  const cat = buildCatalogue([...parsed].reverse());
  assert.deepEqual(
    cat.map((m) => [m.order, m.category, m.id]),
    [
      [1, 'ICS/OT Security Fundamentals', 'ics-ot-security-fundamentals'],
      [2, 'CVE and CVSS Scoring for OT Engineers', 'cve-cvss-for-ot-engineers'],
      [3, 'NERC CIP Compliance Essentials', 'nerc-cip-compliance-essentials'],
      [4, 'Using the platform for Vulnerability Triage', 'platform-vulnerability-triage'],
      [5, 'Incident Response for ICS Environments', 'incident-response-for-ics'],
    ],
  );
  const cvss = cat[1];
  assert.equal(cvss.title, 'CVE and CVSS Scoring for OT Engineers');
  assert.equal(cvss.estimated_minutes, 35);
  assert.match(cvss.summary, /^Where CVE records come from, how to read CVSS 3\.1 and 4\.0 vectors/);
  assert.deepEqual(
    cvss.sections.map((s) => s.id),
    [
      'where-a-vulnerability-record-comes-from',
      'reading-a-cvss-3-1-vector',
      'what-changed-in-cvss-4-0',
      'why-the-base-score-misranks-ot-risk',
      'epss-kev-and-ssvc-adding-likelihood-and-decisions',
    ],
  );
  assert.equal(cvss.sections[1].title, 'Reading a CVSS 3.1 vector');
  assert.ok(cvss.sections[1].markdown.startsWith('CVSS 3.1 base metrics describe the vulnerability, not your plant:'));
  assert.ok(
    cvss.sections[1].html.startsWith(
      '<p>CVSS 3.1 base metrics describe the vulnerability, not your plant:</p>\n<table>\n<thead>\n<tr>\n<th>Metric</th>\n<th>Values</th>\n<th>Question it answers</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>Attack Vector (AV)</td>',
    ),
  );
  assert.ok(
    cvss.sections[0].html.startsWith(
      '<ul>\n<li>A <strong>CVE ID</strong> (<code>CVE-YYYY-NNNNN</code>) is assigned by a CVE Numbering Authority (CNA): a vendor PSIRT such as\nSiemens ProductCERT',
    ),
  );
  for (const m of cat) {
    assert.ok(m.sections.length >= 3, m.id);
    assert.ok(m.self_check.length >= 3, m.id);
    for (const q of m.self_check) assert.ok(q.question.endsWith('?') && q.answer.length > 0, q.question);
  }
  assert.equal(cat[2].sections[2].id, 'cip-007-r2-the-35-day-patch-management-cycle');
});

test('a minimal module: fields, section ids and html, self-check items', () => {
  const m = parseModule('x.md', mod({ body: '## First part\nSome *text*.\n\n## B\nb\n\n## C\n### Deeper\nc\n' }));
  assert.deepEqual(m, {
    id: 'm-1',
    title: 'M',
    category: 'NERC CIP Compliance Essentials',
    order: 3,
    estimated_minutes: 10,
    summary: 's',
    sections: [
      { id: 'first-part', title: 'First part', markdown: 'Some *text*.', html: '<p>Some <em>text</em>.</p>' },
      { id: 'b', title: 'B', markdown: 'b', html: '<p>b</p>' },
      { id: 'c', title: 'C', markdown: '### Deeper\nc', html: '<h3>Deeper</h3>\n<p>c</p>' },
    ],
    self_check: [
      { question: 'One?', answer: '1.' },
      { question: 'Two?', answer: '2.' },
      { question: 'Three?', answer: '3.' },
    ],
  });
  // CRLF files, blank front-matter lines, values trimmed.
  const crlf = parseModule(
    'x.md',
    mod({ head: 'id: m-1\n\ntitle:   M  \ncategory: ICS/OT Security Fundamentals\nminutes: 5\nsummary: s' }).replace(
      /\n/g,
      '\r\n',
    ),
  );
  assert.equal(crlf.title, 'M');
  assert.equal(crlf.order, 1);
  assert.equal(crlf.estimated_minutes, 5);
  assert.deepEqual(
    crlf.sections.map((s) => s.markdown),
    ['a', 'b', 'c'],
  );
  assert.equal(parseModule('x.md', mod({ head: HEAD.replace('minutes: 10', 'minutes: 240') })).estimated_minutes, 240);
  assert.equal(
    parseModule(
      'x.md',
      mod({
        head: HEAD.replace(
          'category: NERC CIP Compliance Essentials',
          'category: Incident Response for ICS Environments',
        ),
      }),
    ).order,
    5,
  );
  assert.equal(parseModule('x.md', mod({ head: HEAD.replace('id: m-1', `id: ${'a'.repeat(80)}`) })).id, 'a'.repeat(80));
});

test('front matter rules and their messages', () => {
  fails('id: m\n\n## A\na', 'missing front matter (a block between --- lines at the top)');
  fails(`\n${mod()}`, 'missing front matter (a block between --- lines at the top)');
  fails(mod({ head: `${HEAD}\nNot a pair` }), 'front matter line 6 is not "key: value": "Not a pair"');
  fails(
    mod({ head: `${HEAD}\u2028x` }),
    `front matter line 5 is not "key: value": ${JSON.stringify('summary: s\u2028x')}`,
  );
  fails(mod({ head: `Title: M\n${HEAD}` }), 'front matter line 1 is not "key: value": "Title: M"');
  fails(mod({ head: `${HEAD}\ntitle: N` }), 'front matter key "title" given twice');
  assert.equal(
    parseModule('x.md', mod({ head: HEAD.replace('id: m-1', 'id:m-1\n   \t') })).id,
    'm-1',
    'no blank needed after the colon; blank lines skipped',
  );
  assert.equal(parseModule('x.md', mod().replace(/\n/g, '\r')).sections.length, 3, 'old Mac line ends');
  fails(mod({ head: `${HEAD}\nauthor: me` }), 'unknown front matter key "author"');
  for (const k of ['id', 'title', 'category', 'minutes', 'summary']) {
    fails(
      mod({
        head: HEAD.split('\n')
          .filter((l) => !l.startsWith(`${k}:`))
          .join('\n'),
      }),
      `front matter "${k}" is missing or empty`,
    );
    fails(
      mod({ head: HEAD.replace(new RegExp(`^${k}:.*$`, 'm'), `${k}:   `) }),
      `front matter "${k}" is missing or empty`,
    );
  }
  for (const id of ['M-1', 'm--1', '-m', 'm-', 'm_1', 'm 1', `${'a'.repeat(81)}`]) {
    fails(
      mod({ head: HEAD.replace('id: m-1', `id: ${id}`) }),
      `id "${id}" must be lower-case words joined by hyphens (at most 80 characters)`,
    );
  }
  fails(
    mod({ head: HEAD.replace('NERC CIP Compliance Essentials', 'NERC CIP') }),
    `category "NERC CIP" is not one of: ${TRAINING_CATEGORIES.join('; ')}`,
  );
  assert.equal(
    TRAINING_CATEGORIES.join('; '),
    'ICS/OT Security Fundamentals; CVE and CVSS Scoring for OT Engineers; NERC CIP Compliance Essentials; Using the platform for Vulnerability Triage; Incident Response for ICS Environments',
  );
  for (const minutes of ['4', '241', '0', '10.5', '1e2', 'ten', ' 10x']) {
    fails(
      mod({ head: HEAD.replace('minutes: 10', `minutes: ${minutes}`) }),
      `minutes must be an integer from 5 to 240, got "${minutes.trim()}"`,
    );
  }
});

test('section and self-check rules and their messages', () => {
  fails(mod({ body: 'Intro.\n\n## A\na\n\n## B\nb\n\n## C\nc\n' }), 'text before the first "## " section');
  fails(mod({ body: '## A\na\n\n## B\nb\n' }), 'at least 3 sections are needed, found 2');
  fails(mod({ body: '## A\na\n\n## B\nb\n\n## C\n\n' }), 'section "C" is empty');
  fails(mod({ body: '## A\na\n\n## B\nb\n\n## C' }), 'section "C" is empty');
  fails(mod({ body: '## A b\na\n\n## B\nb\n\n## a-B\nc\n' }), 'two sections titled "a-B"');
  fails(mod({ self: '' }), 'no "## Self-check" section');
  fails(mod({ self: '## Self-check' }), 'the self-check needs at least 3 questions, found 0');
  const untitled = parseModule('x.md', mod({ body: '## A  \nsee ## here\n\n## B\nb\n\n## \nc\n' }));
  assert.deepEqual(
    untitled.sections.map((x) => [x.id, x.title, x.markdown]),
    [
      ['a', 'A', 'see ## here'],
      ['b', 'B', 'b'],
      ['section', '', 'c'],
    ],
  );
  fails(mod({ self: `${SELF}\n${SELF}` }), 'two self-check sections');
  fails(mod({ self: `${SELF}\n## D\nd\n` }), 'section "D" after the self-check (the self-check comes last)');
  fails(
    mod({ self: '## Self-check\n\nQ: One?\nA: 1.\n\nQ: Two?\nA: 2.\n' }),
    'the self-check needs at least 3 questions, found 2',
  );
  fails(mod({ self: '## Self-check\n\nQ: One?\nQ: Two?\nA: 2.\n' }), 'self-check question without an answer: "One?"');
  fails(mod({ self: `${SELF}Q: Four?\n` }), 'self-check question without an answer: "Four?"');
  fails(mod({ self: '## Self-check\n\nA: 1.\n' }), 'self-check answer without a question: "A: 1."');
  fails(mod({ self: '## Self-check\n\nQ:\nA: 1.\n' }), 'self-check question or answer is empty');
  fails(mod({ self: '## Self-check\n\nQ: One?\nA:   \n' }), 'self-check question or answer is empty');
  fails(
    mod({ self: '## Self-check\n\nQ: One?\nAnswer: 1.\n' }),
    'self-check lines must start with "Q:" or "A:": "Answer: 1."',
  );
  // Three questions are enough, surrounding blanks and indentation are ignored.
  const m = parseModule(
    'x.md',
    mod({ self: '## Self-check\n  Q:  One? \n   A:  1. \n\n\nQ: Two?\nA: 2.\nQ: Three?\nA: 3.' }),
  );
  assert.deepEqual(
    m.self_check.map((x) => [x.question, x.answer]),
    [
      ['One?', '1.'],
      ['Two?', '2.'],
      ['Three?', '3.'],
    ],
  );
});

test('the catalogue: one module per category, unique ids, every category present', () => {
  const parsed = files().map(({ file, text }) => ({ file, module: parseModule(file, text) }));
  const e = (fn: () => unknown, message: string) =>
    assert.throws(fn, (x: unknown) => x instanceof TrainingContentError && x.message === message);
  const dup = {
    file: 'dup.md',
    module: { ...parsed[0].module, category: parsed[1].module.category } as TrainingModule,
  };
  e(
    () => buildCatalogue([parsed[0], dup]),
    `Training module dup.md: id "ics-ot-security-fundamentals" is also used by ${parsed[0].file}`,
  );
  const sameCat = { file: 'cat.md', module: { ...parsed[1].module, id: 'other' } };
  e(
    () => buildCatalogue([...parsed, sameCat]),
    `Training module cat.md: category "CVE and CVSS Scoring for OT Engineers" already has a module (${parsed[1].file}); one module per category`,
  );
  e(
    () => buildCatalogue(parsed.slice(0, 3)),
    'Training module (catalogue): no module for the categories: Using the platform for Vulnerability Triage; Incident Response for ICS Environments',
  );
  e(
    () => buildCatalogue([]),
    `Training module (catalogue): no module for the categories: ${TRAINING_CATEGORIES.join('; ')}`,
  );
});

// The renderer is markdown-it (CommonMark and tables, ADR 0095); these cases pin our configuration of it: HTML off,
// http(s) links only and with rel, no images, no inline styles, and the blocks the modules use.
test('Markdown blocks: headings, fences, tables, lists', () => {
  assert.equal(renderMarkdown('#### Four\n### Three'), '<h4>Four</h4>\n<h3>Three</h3>');
  assert.equal(
    renderMarkdown('```ts\nconst a = 1;\n\n  b\n```\nafter'),
    '<pre><code class="language-ts">const a = 1;\n\n  b\n</code></pre>\n<p>after</p>',
  );
  assert.equal(renderMarkdown('```\nopen'), '<pre><code>open</code></pre>', 'an unclosed fence runs to the end');
  // Alignment colons write no style attribute (the pages' CSP refuses inline styles).
  assert.equal(
    renderMarkdown('| A |\n|:---:|\n| 1 |\n|2|\n\nafter'),
    '<table>\n<thead>\n<tr>\n<th>A</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n<tr>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n<p>after</p>',
  );
  assert.equal(
    renderMarkdown('| **A** | `b\\|` |\n|---|---|'),
    '<table>\n<thead>\n<tr>\n<th><strong>A</strong></th>\n<th><code>b|</code></th>\n</tr>\n</thead>\n</table>',
  );
  assert.equal(renderMarkdown('3. x\n4. y'), '<ol start="3">\n<li>x</li>\n<li>y</li>\n</ol>');
  assert.equal(
    renderMarkdown('- x\n  - nested\n- y'),
    '<ul>\n<li>x\n<ul>\n<li>nested</li>\n</ul>\n</li>\n<li>y</li>\n</ul>',
  );
  assert.equal(renderMarkdown('a\r\nb'), '<p>a\nb</p>');
  assert.equal(renderMarkdown(''), '');
  assert.equal(renderMarkdown('\n\n  \n'), '');
});

test('Markdown inline: code spans, bold, italics, links, escapes; no HTML, no images, no other schemes', () => {
  assert.equal(renderMarkdown('a `x*y*z` b'), '<p>a <code>x*y*z</code> b</p>');
  assert.equal(renderMarkdown('**bold** and *it*'), '<p><strong>bold</strong> and <em>it</em></p>');
  assert.equal(renderMarkdown('\\*\\* not bold \\*\\*'), '<p>** not bold **</p>');
  assert.equal(
    renderMarkdown('[a](http://x.test/p) [b](https://x.test/q?r=1&s=2) [c](ftp://x.test) [d](javascript:alert(1))'),
    '<p><a href="http://x.test/p" rel="noopener noreferrer">a</a> <a href="https://x.test/q?r=1&amp;s=2" rel="noopener noreferrer">b</a> [c](ftp://x.test) [d](javascript:alert(1))</p>',
  );
  assert.equal(renderMarkdown(`Tom's "x" <y> & z`), "<p>Tom's &quot;x&quot; &lt;y&gt; &amp; z</p>");
  assert.equal(
    renderMarkdown('<b>x</b>\n\n<div onclick="x">y</div>'),
    '<p>&lt;b&gt;x&lt;/b&gt;</p>\n<p>&lt;div onclick=&quot;x&quot;&gt;y&lt;/div&gt;</p>',
  );
  assert.equal(
    renderMarkdown('![img](https://x.test/i.png)'),
    '<p>!<a href="https://x.test/i.png" rel="noopener noreferrer">img</a></p>',
  );
});

test('slugs: lower case, accents folded, runs of other characters to one hyphen, none at the ends, fallback', () => {
  assert.equal(slug('  Hello,   World!  '), 'hello-world');
  assert.equal(slug('Café Bar'), 'cafe-bar');
  assert.equal(slug('--a--b--'), 'a-b');
  assert.equal(slug('!!!'), 'section');
  assert.equal(slug(''), 'section');
  assert.equal(slug('IEC 62443: zones'), 'iec-62443-zones');
});

test('module status and the progress summary', () => {
  const at = (s: string) => new Date(s);
  const row = (module_id: string, updated: string, completed: string | null): ProgressRow => ({
    module_id,
    started_at: at('2026-01-01T00:00:00Z'),
    completed_at: completed ? at(completed) : null,
    updated_at: at(updated),
  });
  assert.equal(moduleStatus(undefined), 'not_started');
  assert.equal(moduleStatus(row('a', '2026-01-02T00:00:00Z', null)), 'in_progress');
  assert.equal(moduleStatus(row('a', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z')), 'completed');
  const cat = files().map(({ file, text }) => parseModule(file, text));
  assert.deepEqual(summarizeProgress(cat, []), {
    total_modules: 5,
    started: 0,
    in_progress: 0,
    completed: 0,
    percent: 0,
    last_activity_at: null,
  });
  assert.deepEqual(summarizeProgress([], [row('a', '2026-01-02T00:00:00Z', null)]), {
    total_modules: 0,
    started: 0,
    in_progress: 0,
    completed: 0,
    percent: 0,
    last_activity_at: null,
  });
  const rows = [
    row('ics-ot-security-fundamentals', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z'),
    row('cve-cvss-for-ot-engineers', '2026-05-01T00:00:00Z', null),
    row('nerc-cip-compliance-essentials', '2026-04-01T00:00:00Z', '2026-04-01T00:00:00Z'),
    row('retired-module', '2026-09-01T00:00:00Z', '2026-09-01T00:00:00Z'),
  ];
  assert.deepEqual(summarizeProgress(cat, rows), {
    total_modules: 5,
    started: 3,
    in_progress: 1,
    completed: 2,
    percent: 40,
    last_activity_at: '2026-05-01T00:00:00.000Z',
  });
  // 1 of 3 rounds to 33, 2 of 3 to 67.
  assert.equal(summarizeProgress(cat.slice(0, 3), rows.slice(0, 1)).percent, 33);
  assert.equal(summarizeProgress(cat.slice(0, 3), rows).percent, 67);
  assert.equal(
    summarizeProgress(cat, [row('cve-cvss-for-ot-engineers', '1969-12-31T00:00:00Z', null)]).last_activity_at,
    '1969-12-31T00:00:00.000Z',
  );
  // Equal timestamps: the first one is kept (same value either way); the latest wins whatever the order.
  assert.equal(summarizeProgress(cat, [...rows].reverse()).last_activity_at, '2026-05-01T00:00:00.000Z');
});

test('a heading holding U+2028 ends; accents fold in slugs', () => {
  assert.equal(renderMarkdown('### A\u2028B\nafter'), '<h3>A\u2028B</h3>\n<p>after</p>');
  assert.equal(slug('Élan vital'), 'elan-vital');
  assert.equal(slug('Ünterstützung für Geräte'), 'unterstutzung-fur-gerate');
});
