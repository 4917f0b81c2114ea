// docs/routes.md is generated from the route table (every route's declared policy), so it stays true: this test
// fails when the file is stale. Regenerate with: UPDATE_ROUTES_DOC=1 node --import tsx --test test/contract/routes-doc.test.ts
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { testApp, type TestApp } from '../helpers/app.ts';
import { requirements } from '../../src/http/auth.ts';
import type { RouteEntry } from '../../src/http/conventions.ts';

const FILE = new URL('../../docs/routes.md', import.meta.url);

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

function row(r: RouteEntry): string {
  const p = r.policy!;
  const credentialed = p.mode !== 'none' && p.mode !== 'public';
  const need = requirements(r.method, p);
  const kinds = [p.partner ? 'partner' : '', p.trial ? 'trial' : ''].filter(Boolean).join(', ') || '—';
  const tenant = p.tenant
    ? `${p.tenant.resource}${p.tenant.ids.length ? `: ${p.tenant.ids.map((i) => `${i.in}.${i.name} → ${i.foreign === 'empty' ? 'empty result' : `404 ${i.foreign}`}`).join('; ')}` : ' (own data only)'}`
    : 'no';
  const summary = String((r.schema as { summary?: string } | null)?.summary ?? '').replace(/\|/g, '\\|');
  return `| ${r.method} | \`${r.url}\` | ${p.mode}${p.publicHtml ? ' (HTML public)' : ''} | ${credentialed ? need.role : '—'} | ${credentialed ? (need.scope ?? '—') : '—'} | ${kinds} | ${tenant} | ${summary} |`;
}

export function renderRoutesDoc(table: RouteEntry[]): string {
  const rows = table
    .filter((r) => !r.url.startsWith('/docs'))
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
    .map(row);
  return `# Routes and their policies

Generated from the route table by \`test/contract/routes-doc.test.ts\` (it fails when this file is stale;
regenerate with \`UPDATE_ROUTES_DOC=1 node --import tsx --test test/contract/routes-doc.test.ts\`).
Each route declares its policy in \`config.auth\` (src/http/auth.ts); one hook enforces it.

- **Auth**: \`none\` (no credential read), \`public\` (optional key or session; a bad key is still 401), \`key\`,
  \`session\`, \`key_or_session\`, \`internal_or_session\` (X-Internal-Key or a session).
- **Role / scope**: what the call needs, as enforced: the declaration, raised to admin and \`write\` for every
  write (any method but GET/HEAD). Sessions hold both scopes; a session write also needs the service's own Origin.
- **Keys**: partner and trial keys are refused unless listed (spec §5.8).
- **Tenant**: the tenant resource the route touches and where it takes ids; what another organization's id
  answers. \`test/security/tenant-runner.test.ts\` attacks every such route by this declaration.
- Not listed: the \`/docs\` reference UI and its assets (auth \`none\`, no tenant data).

| Method | Path | Auth | Role | Scope | Keys | Tenant | Summary |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

test('docs/routes.md lists every route with its declared policy', () => {
  const doc = renderRoutesDoc(t.app.routeTable());
  if (process.env.UPDATE_ROUTES_DOC === '1') writeFileSync(FILE, doc);
  assert.equal(readFileSync(FILE, 'utf8'), doc, 'docs/routes.md is stale: regenerate it (see the file header)');
});
