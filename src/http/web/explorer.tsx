// The signed-in app's CVE explorer: the filters of GET /api/v1/cves as a GET form, the matching CVEs as cards with
// paging, and for owners and admins a button to watch a card's vendor or product.
import { canChange, Csrf, html, Layout, type Viewer } from './layout.tsx';
import { entityKey } from '../../domain/watchlist.ts';

export interface ExplorerCard {
  cve_id: string;
  title: string;
  severity: string | null;
  cvss_score: number | null;
  bcs_score: number;
  kev_flagged: boolean;
  exploit_maturity: string;
  patch_status: string;
  primary_vendor: string | null;
  primary_product: string | null;
  published_at: string | null;
}

/**
 * One click watches a card's vendor or product, or the protocol the explorer is filtered by: a small POST form to
 * /watchlist (CSRF token, back to the same explorer URL). What the watchlist holds already says so instead.
 */
function WatchButton({
  v,
  type,
  id,
  label,
  here,
  watched,
  cve,
}: {
  v: Viewer;
  type: 'vendor' | 'product' | 'protocol';
  id: string;
  label: string;
  here: string;
  watched: ReadonlySet<string>;
  cve?: string;
}) {
  const k = entityKey(type, id);
  if (k.ok && watched.has(`${type}:${k.key}`))
    return (
      <span class="badge">
        Watching {type} {label}
      </span>
    );
  return (
    <form class="inline" method="post" action="/watchlist">
      <Csrf token={v.csrf} />
      <input type="hidden" name="entity_type" value={type} />
      <input type="hidden" name="entity_id" value={id} />
      <input type="hidden" name="back" value={here} />
      <button
        type="submit"
        class="secondary"
        aria-label={cve ? `Watch ${type} ${label} (${cve})` : `Watch ${type} ${label}`}
      >
        Watch {type === 'vendor' ? label : type}
      </button>
    </form>
  );
}

/** The CVE explorer: the §4.1 filters of GET /api/v1/cves as a GET form (the URL holds the query), cards, paging; `watched`: the watchlist's `type:id` keys. */
export function renderExplorer(
  v: Viewer,
  q: Record<string, string>,
  page: { items: ExplorerCard[]; total: number; page: number; perPage: number } | null,
  link: (page: number) => string,
  here: string,
  watched: ReadonlySet<string> = new Set(),
): string {
  const field = (name: string, label: string, attrs: { type?: string; inputMode?: 'decimal' } = {}) => (
    <label>
      {label}{' '}
      <input
        name={name}
        value={q[name] ?? ''}
        type={attrs.type ?? 'text'}
        inputMode={attrs.inputMode}
        maxLength={200}
        size={attrs.type === 'date' ? undefined : 10}
      />
    </label>
  );
  const select = (name: string, label: string, options: [string, string][]) => (
    <label>
      {label}{' '}
      <select name={name}>
        {options.map(([val, text]) => (
          <option value={val} selected={(q[name] ?? '') === val}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  const yesNo: [string, string][] = [
    ['', 'any'],
    ['true', 'yes'],
    ['false', 'no'],
  ];
  const pages = page ? Math.max(1, Math.ceil(page.total / page.perPage)) : 1;
  return html(
    <Layout title="CVE explorer" current="/cves" viewer={v}>
      <h1>CVE explorer</h1>
      <form method="get" action="/cves" class="filters" role="search">
        <label>
          Search <input name="q" type="search" value={q.q ?? ''} maxLength={200} />
        </label>
        {field('vendor', 'Vendor')}
        {select('protocol', 'Protocol', [
          ['', 'any'],
          ...[
            'modbus',
            'dnp3',
            'bacnet',
            'profinet',
            'ethernet/ip',
            'opc ua',
            'iec 61850',
            'iec 104',
            's7comm',
            'mqtt',
          ].map((p): [string, string] => [p, p]),
        ])}
        {select('severity', 'Severity', [
          ['', 'any'],
          ['CRITICAL', 'critical'],
          ['HIGH', 'high'],
          ['MEDIUM', 'medium'],
          ['LOW', 'low'],
          ['CRITICAL,HIGH', 'critical or high'],
        ])}
        {field('cvss_min', 'CVSS from', { inputMode: 'decimal' })}
        {field('cvss_max', 'CVSS to', { inputMode: 'decimal' })}
        {field('bcs_min', 'BCS from', { inputMode: 'decimal' })}
        {field('bcs_max', 'BCS to', { inputMode: 'decimal' })}
        {select('kev', 'In KEV', yesNo)}
        {select('has_exploit', 'Exploit or PoC', yesNo)}
        {select('unpatched', 'Unpatched', yesNo)}
        {select('patch_status', 'Patch status', [
          ['', 'any'],
          ['patched', 'patched'],
          ['unpatched', 'unpatched'],
          ['partial', 'partial'],
          ['unknown', 'unknown'],
        ])}
        {field('date_from', 'Published from', { type: 'date' })}
        {field('date_to', 'Published to', { type: 'date' })}
        {select('sort_by', 'Sort', [
          ['', 'newest'],
          ['cvss', 'highest CVSS'],
          ['epss', 'highest EPSS'],
        ])}
        <button type="submit">Search</button> <a href="/cves">Clear</a>
      </form>
      {page ? (
        <>
          <p>{page.total} CVEs</p>
          {canChange(v) && q.protocol ? (
            <p class="watch">
              Every CVE below names {q.protocol}:{' '}
              <WatchButton v={v} type="protocol" id={q.protocol} label={q.protocol} here={here} watched={watched} />
            </p>
          ) : null}
          <ul class="cards" id="cve-cards">
            {page.items.map((c) => (
              <li class="card">
                <h2>
                  <a href={`/cve/${c.cve_id}`}>{c.cve_id}</a>
                </h2>
                <p>{c.title}</p>
                <p>
                  <span class={`badge sev-${c.severity ?? 'NONE'}`}>{c.severity ?? 'not scored'}</span>
                  {c.kev_flagged ? <span class="badge kev">KEV</span> : null}
                  <span class="sub">
                    CVSS {c.cvss_score ?? '—'} · BCS {c.bcs_score} · {c.patch_status} · published{' '}
                    {(c.published_at ?? '').slice(0, 10) || '—'}
                  </span>
                </p>
                <p class="sub">
                  {c.primary_vendor ?? ''} {c.primary_product ?? ''}
                </p>
                {canChange(v) && c.primary_vendor ? (
                  <p class="watch">
                    <WatchButton
                      v={v}
                      type="vendor"
                      id={c.primary_vendor}
                      label={c.primary_vendor}
                      here={here}
                      watched={watched}
                      cve={c.cve_id}
                    />{' '}
                    {c.primary_product ? (
                      <WatchButton
                        v={v}
                        type="product"
                        id={`${c.primary_vendor}/${c.primary_product}`}
                        label={`${c.primary_vendor} ${c.primary_product}`}
                        here={here}
                        watched={watched}
                        cve={c.cve_id}
                      />
                    ) : null}
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
          <nav class="pager" aria-label="Pages">
            {page.page > 1 ? <a href={link(page.page - 1)}>Previous</a> : null}
            <span>
              Page {page.page} of {pages}
            </span>
            {page.page < pages ? <a href={link(page.page + 1)}>Next</a> : null}
          </nav>
        </>
      ) : null}
    </Layout>,
  );
}
