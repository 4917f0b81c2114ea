// The Markdown subset of the training modules (src/domain/training.ts): what each construct renders to, and that
// nothing in a module file reaches a page as markup (every character escaped; only http(s) links become anchors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseModule, renderMarkdown, slug, summarizeProgress } from '../../src/domain/training.ts';

test('block and inline constructs (markdown-it, CommonMark and tables)', () => {
  assert.equal(renderMarkdown('One line\ncontinued.\n\nTwo.'), '<p>One line\ncontinued.</p>\n<p>Two.</p>');
  assert.equal(
    renderMarkdown('### Sub\n- a **b**\n- `c<d>`\n  more'),
    '<h3>Sub</h3>\n<ul>\n<li>a <strong>b</strong></li>\n<li><code>c&lt;d&gt;</code>\nmore</li>\n</ul>',
  );
  assert.equal(renderMarkdown('1. x\n2. *y*'), '<ol>\n<li>x</li>\n<li><em>y</em></li>\n</ol>');
  assert.equal(
    renderMarkdown('| A | B |\n|---|---|\n| 1 | `2` |'),
    '<table>\n<thead>\n<tr>\n<th>A</th>\n<th>B</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td><code>2</code></td>\n</tr>\n</tbody>\n</table>',
  );
  assert.equal(renderMarkdown('```\nGET /x?a=1&b=<2>\n```'), '<pre><code>GET /x?a=1&amp;b=&lt;2&gt;\n</code></pre>');
  assert.equal(
    renderMarkdown('See [NVD](https://nvd.nist.gov/).'),
    '<p>See <a href="https://nvd.nist.gov/" rel="noopener noreferrer">NVD</a>.</p>',
  );
  assert.equal(renderMarkdown('Track\\* and Act'), '<p>Track* and Act</p>');
  // Only http(s) targets become links; any other scheme is left as the text it was written as.
  assert.equal(renderMarkdown('[mail](mailto:a@b.test) [rel](/x)'), '<p>[mail](mailto:a@b.test) [rel](/x)</p>');
});

test('no markup passes through: HTML is escaped, script-scheme links stay text', () => {
  const html = renderMarkdown(
    '<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](data:text/html,hi) <img src=x onerror=alert(1)>\n\n| <b> |\n|---|\n| "q" |',
  );
  assert.ok(!/<script|<img|<b>|href="javascript|href="data/i.test(html), html);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /\[x\]\(javascript:alert\(1\)\)/);
  assert.match(html, /&quot;q&quot;/);
  // A quote cannot break out of an href either.
  assert.ok(!renderMarkdown('[a](https://x.test/"onmouseover="1)').includes('"onmouseover'));
});

test('slugs and the progress summary', () => {
  assert.equal(slug('CIP-007 R2: the 35-day patch management cycle'), 'cip-007-r2-the-35-day-patch-management-cycle');
  const mod = parseModule(
    'm.md',
    `---
id: m
title: M
category: NERC CIP Compliance Essentials
minutes: 10
summary: s
---

## A
a

## B
b

## C
c

## Self-check

Q: 1?
A: 1.

Q: 2?
A: 2.

Q: 3?
A: 3.
`,
  );
  assert.deepEqual(
    mod.sections.map((s) => s.id),
    ['a', 'b', 'c'],
  );
  assert.equal(mod.order, 3);
  const at = (s: string) => new Date(s);
  assert.deepEqual(
    summarizeProgress(
      [mod],
      [
        {
          module_id: 'm',
          started_at: at('2026-01-01T00:00:00Z'),
          completed_at: at('2026-01-02T00:00:00Z'),
          updated_at: at('2026-01-02T00:00:00Z'),
        },
        {
          module_id: 'gone',
          started_at: at('2026-02-01T00:00:00Z'),
          completed_at: null,
          updated_at: at('2026-02-01T00:00:00Z'),
        },
      ],
    ),
    {
      total_modules: 1,
      started: 1,
      in_progress: 0,
      completed: 1,
      percent: 100,
      last_activity_at: '2026-01-02T00:00:00.000Z',
    },
  );
});
