// The public web page of one CVE (`_links.html`, `references.breachspider_url`): built from the same view as the
// API detail so the two never disagree.
import type { ComponentChildren } from 'preact';
import type { DetailView } from '../../domain/cve-view.ts';
import { html, Layout, type Viewer } from './layout.tsx';

/** Only http(s) links become anchors; anything else is shown as text (no javascript: or data: URLs). */
function Link({ url, text }: { url: string | null; text?: string }) {
  if (!url) return null;
  if (!/^https?:\/\//i.test(url)) return <>{text ?? url}</>;
  return (
    <a href={url} rel="noopener noreferrer">
      {text ?? url}
    </a>
  );
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined ? '—' : n.toFixed(digits));

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{children}</td>
    </tr>
  );
}

function List({ items }: { items: ComponentChildren[] }) {
  return items.length ? (
    <ul>
      {items.map((i) => (
        <li>{i}</li>
      ))}
    </ul>
  ) : (
    <p class="none">None listed.</p>
  );
}

export function renderCvePage(v: DetailView, viewer: Viewer | null = null): string {
  const cvss = v.scoring.cvss;
  const sev = cvss.severity ?? 'NONE';
  const ex = v.exploitation;
  const p = v.patch;
  const r = v.references;
  return html(
    <Layout
      title={`${v.cve_id}: ${v.title}`}
      viewer={viewer}
      current="/cves"
      head={<meta name="description" content={v.description.slice(0, 200)} />}
    >
      <h1 id="cve-id">{v.cve_id}</h1>
      <p class="sub" id="title">
        {v.title} · <span id="bsid">{v.bsid}</span>
      </p>
      <p class="badges">
        <span class={`badge sev-${sev}`}>{sev}</span>
        {ex.kev_flagged ? <span class="badge kev">Known exploited (KEV)</span> : null}
        <span class="badge mat">Exploit maturity: {ex.exploit_maturity}</span>
      </p>
      <p id="description">{v.description}</p>

      <h2>Scores</h2>
      <table id="scores">
        <tbody>
          <Row label="CVSS">
            <span id="cvss-score">{fmt(cvss.score)}</span> {cvss.version ? `(v${cvss.version})` : ''}{' '}
            {cvss.vector ? <code>{cvss.vector}</code> : null}
          </Row>
          <Row label="Criticality (BCS)">
            <span id="bcs-score">{fmt(v.scoring.bcs.score)}</span> · {v.scoring.bcs.tier}
          </Row>
          <Row label="EPSS">
            <span id="epss-score">{fmt(v.scoring.epss.score, 4)}</span> (percentile {fmt(v.scoring.epss.percentile, 4)}){' '}
            {v.scoring.epss.interpretation ?? ''}
          </Row>
          <Row label="Attack vector">{cvss.attack_vector ?? '—'}</Row>
          <Row label="Attack complexity">{cvss.attack_complexity ?? '—'}</Row>
          <Row label="Privileges required">{cvss.privileges_required ?? '—'}</Row>
          <Row label="User interaction">{cvss.user_interaction ?? '—'}</Row>
          <Row label="Impact (C/I/A)">
            {[cvss.confidentiality_impact, cvss.integrity_impact, cvss.availability_impact]
              .map((x) => x ?? '—')
              .join(' / ')}
          </Row>
        </tbody>
      </table>

      <h2>Exploitation</h2>
      <table id="exploitation">
        <tbody>
          <Row label="Known exploited (KEV)">
            {ex.kev_flagged ? `Yes${ex.kev_added_at ? `, added ${ex.kev_added_at.slice(0, 10)}` : ''}` : 'No'}
          </Row>
          <Row label="Exploit maturity">{ex.exploit_maturity}</Row>
          <Row label="Public exploit">{ex.has_public_exploit ? 'Yes' : 'No'}</Row>
          <Row label="Proof of concept">{ex.poc_available ? 'Yes' : 'No'}</Row>
        </tbody>
      </table>

      <h2>Affected</h2>
      <table id="affected">
        <tbody>
          <Row label="Vendors">{v.affected.vendors.join(', ') || '—'}</Row>
          <Row label="Products">{v.affected.products.join(', ') || '—'}</Row>
          <Row label="Protocols">{v.affected.protocols.join(', ') || '—'}</Row>
          <Row label="Device types">{v.affected.device_types.join(', ') || '—'}</Row>
          <Row label="ICS relevant">
            {v.affected.ics_relevant ? 'Yes' : 'No'} (score {fmt(v.affected.ics_relevance_score, 2)})
          </Row>
          <Row label="Layer / category">{`${v.classification.layer} / ${v.classification.category}`}</Row>
          <Row label="CWE">
            {v.classification.cwes.length
              ? v.classification.cwes.map((c, i) => (
                  <>
                    {i ? ', ' : ''}
                    <Link url={c.url} text={`CWE-${c.id}`} />
                  </>
                ))
              : '—'}
          </Row>
        </tbody>
      </table>

      <h2>Patch</h2>
      <table id="patch">
        <tbody>
          <Row label="Status">
            <span id="patch-status">{p.status}</span>
          </Row>
          <Row label="Patch available">{p.patch_available ? 'Yes' : 'No'}</Row>
          {p.patch_version ? <Row label="Patch version">{p.patch_version}</Row> : null}
          {p.patch_url ? (
            <Row label="Patch link">
              <Link url={p.patch_url} />
            </Row>
          ) : null}
          {p.fixed_in ? <Row label="Fixed in">{`${p.fixed_in.product} ${p.fixed_in.version}`}</Row> : null}
          {p.note ? <Row label="Note">{p.note}</Row> : null}
          {p.patch_notes ? <Row label="Notes">{p.patch_notes}</Row> : null}
        </tbody>
      </table>

      <h2>Attack patterns (CAPEC)</h2>
      <div id="capec">
        <List
          items={v.capec.map(
            (c) =>
              `CAPEC-${c.capec_id}: ${c.name}${c.typical_severity ? ` (${c.typical_severity})` : ''} · via ${c.via_cwe.map((w) => `CWE-${w}`).join(', ')}`,
          )}
        />
      </div>

      <h2>Analysis</h2>
      <div id="sage">
        <p>{v.sage.executive_summary ?? 'No analysis yet.'}</p>
        {v.sage._upgrade_required ? (
          <p class="none">
            The full analysis (ICS context, remediation guidance, confidence) is available on the Professional plan and
            above.
          </p>
        ) : null}
      </div>

      <h2>References</h2>
      <div id="references">
        <p>
          <Link url={r.nvd_url} text="NVD entry" /> · <Link url={r.cve_org_url} text="CVE record" />
        </p>
        <h3>Vendor advisories</h3>
        <List
          items={r.vendor_advisories.map((a) => (
            <Link url={a.url} />
          ))}
        />
        <h3>ICS advisories</h3>
        <List
          items={r.cisa_ics_advisories.map((a) => (
            <>
              {a.advisory_id}: {a.url ? <Link url={a.url} text={a.title} /> : a.title}
              {a.published ? ` (${a.published})` : ''}
            </>
          ))}
        />
        <h3>Other references ({r.other_references_total})</h3>
        <List
          items={r.other_references.map((o) => (
            <>
              <Link url={o.url} />
              {o.tags.length ? (
                <>
                  {' '}
                  <small>{o.tags.join(', ')}</small>
                </>
              ) : null}
            </>
          ))}
        />
      </div>

      <h2>Dates</h2>
      <table id="dates">
        <tbody>
          <Row label="Published">{v.temporal.published_at ?? '—'}</Row>
          <Row label="Modified">{v.temporal.modified_at ?? '—'}</Row>
          <Row label="Enriched">{v.temporal.enriched_at ?? '—'}</Row>
        </tbody>
      </table>
      <p class="sub">
        Machine-readable: <a href={v._links.self}>JSON</a> · <a href={v._links.pdf}>PDF report</a>
      </p>
    </Layout>,
  );
}

/** The page a person sees for an unknown CVE id (status 404). */
export function renderNotFoundPage(cveId: string): string {
  return html(
    <Layout title={`${cveId} not found`}>
      <h1>{cveId}</h1>
      <p id="not-found">This CVE is not in the corpus (yet). New CVEs appear after the next feed sync.</p>
    </Layout>,
  );
}
