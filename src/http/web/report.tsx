// The plant report as an HTML page (docs/reports.md): the same sections, in the same order, as its PDF
// (services/plant-report-pdf.ts) and its email text (services/plant-reports.ts reportText).
import type { PlantReport, ReportCve } from '../../services/plant-reports.ts';
import { LineChart } from './charts.tsx';
import { html, Layout } from './layout.tsx';

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

function CveTable({ id, cves, fixes }: { id: string; cves: ReportCve[]; fixes: boolean }) {
  return (
    <div class="scroll">
      <table id={id}>
        <thead>
          <tr>
            <th>CVE</th>
            <th>Priority</th>
            <th>Severity</th>
            <th>KEV</th>
            <th>{fixes ? 'Assets and fix' : 'Assets'}</th>
          </tr>
        </thead>
        <tbody>
          {cves.map((c) => (
            <tr>
              <td>
                <a href={`/cve/${c.cve_id}`}>{c.cve_id}</a>
                <br />
                <span class="sub">{c.title}</span>
              </td>
              <td>{c.priority}</td>
              <td>{c.severity ?? '—'}</td>
              <td>{c.known_exploited ? 'yes' : 'no'}</td>
              <td>
                <ul>
                  {c.assets.map((a) => (
                    <li>
                      {a.asset_id} ({a.product} {a.version ?? 'version unknown'})
                      {fixes ? `: ${a.fixed_version ? `fixed in ${a.fixed_version}` : 'no fix stated'}` : ''}
                    </li>
                  ))}
                  {c.assets_total > c.assets.length ? (
                    <li>and {c.assets_total - c.assets.length} more assets</li>
                  ) : null}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function renderReportPage(r: PlantReport): string {
  const f = r.summary;
  return html(
    <Layout title={`Plant report: ${r.environment.name}`}>
      <h1>Plant report: {r.environment.name}</h1>
      <p class="sub">
        {r.organization} · period {r.period.from} to {r.period.to} · generated {r.generated_at}
      </p>
      <section id="summary">
        <h2>Exposure summary</h2>
        <dl class="kv">
          <dt>Open CVEs</dt>
          <dd data-figure="open_cves">{f.open_cves}</dd>
          {(['PATCH NOW', 'PATCH NEXT', 'MONITOR', 'IGNORE'] as const).map((p) => (
            <>
              <dt>{p}</dt>
              <dd data-priority={p}>{f.by_priority[p]}</dd>
            </>
          ))}
          <dt>By severity</dt>
          <dd>
            critical {f.by_severity.critical}, high {f.by_severity.high}, medium {f.by_severity.medium}, low{' '}
            {f.by_severity.low}, none {f.by_severity.none}
          </dd>
          <dt>Known exploited (KEV), open</dt>
          <dd data-figure="known_exploited">{f.known_exploited}</dd>
          <dt>Mean age of open KEV CVEs</dt>
          <dd>{f.kev_mean_age_days === null ? '—' : `${f.kev_mean_age_days} days`}</dd>
          <dt>Assets with an open CVE</dt>
          <dd data-figure="assets_exposed">
            {f.assets_exposed} of {r.environment.assets}
          </dd>
          <dt>Windows hosts past end of life</dt>
          <dd data-figure="windows_eol_hosts">{f.windows_eol_hosts}</dd>
          <dt>Decisions</dt>
          <dd>
            under investigation {f.decisions.under_investigation}, affected {f.decisions.affected}, not affected{' '}
            {f.decisions.not_affected}, fixed {f.decisions.fixed}, to review again {f.decisions.review_again}
          </dd>
        </dl>
        <h3>Trend</h3>
        {r.trend.length >= 2 ? (
          <LineChart
            id="report-trend"
            title="Open CVEs per day"
            description={`Open CVEs of ${r.environment.name} per daily snapshot`}
            points={r.trend.map((t) => ({ label: t.day, value: t.open_cves }))}
          />
        ) : (
          <p class="none">Fewer than two daily snapshots in the period: no trend yet.</p>
        )}
      </section>
      <section id="patch-first">
        <h2>
          What to patch first ({r.patch_first.length} of {r.patch_first_total})
        </h2>
        {r.patch_first.length ? (
          <CveTable id="patch-first-table" cves={r.patch_first} fixes />
        ) : (
          <p class="none">Nothing at PATCH NOW or PATCH NEXT.</p>
        )}
      </section>
      <section id="kev">
        <h2>Known-exploited CVEs ({r.known_exploited.length})</h2>
        {r.known_exploited.length ? (
          <CveTable id="kev-table" cves={r.known_exploited} fixes={false} />
        ) : (
          <p class="none">None open.</p>
        )}
      </section>
      <section id="decisions">
        <h2>
          Decisions taken in the period ({r.decisions_taken.length} of {r.decisions_total})
        </h2>
        {r.decisions_taken.length ? (
          <div class="scroll">
            <table id="decisions-table">
              <thead>
                <tr>
                  <th>When (UTC)</th>
                  <th>CVE</th>
                  <th>Decision</th>
                  <th>Justification</th>
                  <th>Statements</th>
                  <th>By</th>
                </tr>
              </thead>
              <tbody>
                {r.decisions_taken.map((d) => (
                  <tr>
                    <td>{d.at.slice(0, 16).replace('T', ' ')}</td>
                    <td>{d.cve_id}</td>
                    <td>{d.action === 'clear' ? 'cleared' : d.status}</td>
                    <td>{d.justification ?? '—'}</td>
                    <td>
                      {d.impact_statement ? <p>Impact: {d.impact_statement}</p> : null}
                      {d.action_statement ? <p>Action: {d.action_statement}</p> : null}
                      {d.comment ? <p>Comment: {d.comment}</p> : null}
                    </td>
                    <td>{d.by}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="none">None.</p>
        )}
      </section>
      <section id="eol">
        <h2>Windows hosts past end of life ({r.eol_hosts.length})</h2>
        {r.eol_hosts.length ? (
          <ul>
            {r.eol_hosts.map((h) => (
              <li>
                {h.asset_id}: {h.microsoft_product ?? 'product not identified'}
              </li>
            ))}
          </ul>
        ) : (
          <p class="none">None.</p>
        )}
      </section>
      <section id="changes">
        <h2>What changed since the last report</h2>
        {r.changes ? (
          <>
            <p>
              Since the report of {r.changes.since.from} to {r.changes.since.to}: open CVEs{' '}
              {signed(r.changes.open_cves)}, KEV {signed(r.changes.known_exploited)}, exposed assets{' '}
              {signed(r.changes.assets_exposed)}, Windows hosts past end of life {signed(r.changes.windows_eol_hosts)}.
            </p>
            <p>
              Newly open: <span data-changes="new">{r.changes.new_open.join(', ') || 'none'}</span>
            </p>
            <p>
              No longer open: <span data-changes="gone">{r.changes.no_longer_open.join(', ') || 'none'}</span>
            </p>
          </>
        ) : (
          <p class="none">No earlier report of this environment.</p>
        )}
      </section>
    </Layout>,
  );
}
