// The signed-in app's page of one environment: its assets and their CVEs (a page of nameplates, or one asset alone),
// its Windows hosts and, for owners and admins, the forms to add, edit, upload and remove assets. Every form posts with
// the CSRF token; a viewer sees no form that changes anything.
import type { Environment } from '../../services/environments.ts';
import type { AssetAnswer } from '../../services/correlation-answer.ts';
import type { StoredView } from '../../services/windows-correlation.ts';
import { canChange, Csrf, FieldError, html, Layout, type Viewer, Scroll } from './layout.tsx';
import { SuggestionList, suggestFrom } from './suggest.tsx';

/** What an upload came to: done, or refused whole with its message and each refused row's reasons. */
export interface UploadOutcome {
  kind: 'nameplates' | 'windows';
  done?: boolean;
  message?: string;
  rows?: { row: number; asset_id: string | null; errors: string[] }[];
}

const UPLOAD_TEXT = {
  nameplates: { title: 'Nameplates', columns: 'asset_id, vendor, product, version (cpe optional)' },
  windows: {
    title: 'Windows hosts',
    columns:
      "the spec's host columns: asset_id, os_product, edition_id, display_version, os_build, architecture, installation_type, installed_kbs (separated by ;), kb_source, esu_enrolled, collected_at",
  },
} as const;

function UploadForms({ v, env, upload }: { v: Viewer; env: Environment; upload?: UploadOutcome }) {
  return (
    <>
      <h2>Upload a CSV</h2>
      {upload?.done ? (
        <p class="flash" role="status" id="upload-done">
          {UPLOAD_TEXT[upload.kind].title} uploaded: every row stored.
        </p>
      ) : null}
      {upload && !upload.done ? (
        <div class="alert-box" role="alert" id="upload-refused">
          <p>
            <strong>{UPLOAD_TEXT[upload.kind].title}: the file was refused.</strong> {upload.message}
          </p>
          {upload.rows?.length ? (
            <Scroll label="Refused rows">
              <table id="upload-errors">
                <caption>Refused rows (row 1 is the header)</caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Asset id</th>
                    <th scope="col">Reasons</th>
                  </tr>
                </thead>
                <tbody>
                  {upload.rows.map((r) => (
                    <tr>
                      <td>{r.row}</td>
                      <td>{r.asset_id ?? '—'}</td>
                      <td>{r.errors.join('; ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          ) : null}
        </div>
      ) : null}
      <div class="cards">
        {(['nameplates', 'windows'] as const).map((kind) => (
          <form
            method="post"
            action={`/environments/${env.id}/upload`}
            enctype="multipart/form-data"
            class="stack card"
            id={`upload-${kind}`}
          >
            <Csrf token={v.csrf} />
            <input type="hidden" name="kind" value={kind} />
            <label>
              {UPLOAD_TEXT[kind].title} (CSV, UTF-8) <input type="file" name="file" accept=".csv,text/csv" required />
            </label>
            <p class="sub">Columns: {UPLOAD_TEXT[kind].columns}. A file with any refused row stores nothing.</p>
            <button type="submit">Upload {UPLOAD_TEXT[kind].title.toLowerCase()}</button>
          </form>
        ))}
      </div>
    </>
  );
}

/** Whether a host needs Extended Security Updates for a fix (a fix group of ESU). */
const needsEsu = (h: StoredView) => h.fix_groups.some((g) => g.fix_type === 'esu');

function WindowsHosts({ hosts, total }: { hosts: StoredView[]; total: number }) {
  if (!hosts.length) return null;
  return (
    <>
      <h2 id="windows-hosts">Windows hosts ({total})</h2>
      {hosts.map((h) => (
        <section class="card" id={`host-${h.asset_id}`}>
          <h3>
            {h.asset_id}: {h.microsoft_product ?? 'not mapped to a Microsoft product'}
          </h3>
          <p class="sub">
            {h.counts.confirmed_open} open · {h.counts.needs_review} need review · {h.counts.cleared} cleared ·
            evaluated {h.evaluated_on}
          </p>
          <p>
            {h.end_of_life ? (
              <span class="badge sev-CRITICAL">end of life</span>
            ) : (
              <span class="badge sev-LOW">supported</span>
            )}{' '}
            {needsEsu(h) ? <span class="badge sev-HIGH">ESU needed</span> : null}{' '}
            {h.labels
              .filter((l) => l !== 'end of life')
              .map((l) => (
                <span class="badge">{l}</span>
              ))}
          </p>
          {h.map_note ? <p class="sub">{h.map_note}</p> : null}
          {h.fix_groups.length ? (
            <ol class="fixes">
              {h.fix_groups.map((g) => (
                <li>
                  {g.fix}{' '}
                  <span class="sub">
                    ({g.counts.total} CVEs{g.counts.known_exploited ? `, ${g.counts.known_exploited} KEV` : ''}
                    {g.highest_score !== null ? `, highest ${g.highest_score}` : ''})
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <p class="none">Nothing to install.</p>
          )}
        </section>
      ))}
    </>
  );
}

/**
 * CVE rows per asset on a page of the environment's assets: the highest-priority ones, with a link to the asset
 * alone for the rest, so a page of 50 nameplates stays readable and light; the asset alone lists every CVE.
 */
export const ASSET_CVE_ROWS = 10;

/** What a refused edit of a stored nameplate sent, with the fields' messages. */
export interface AssetEdit {
  asset_id: string;
  vendor: string;
  product: string;
  version: string;
  errors: Record<string, string>;
}

/**
 * The edit form of one stored nameplate (its vendor, product and version; the asset_id stays), with the values a
 * refused edit sent and their messages. `n`: the asset's place on the page, for ids unique on the page.
 */
function EditAsset({
  v,
  env,
  asset,
  n,
  edit,
}: {
  v: Viewer;
  env: Environment;
  asset: AssetAnswer['asset'];
  n: number;
  edit?: AssetEdit;
}) {
  const values = edit ?? { vendor: asset.vendor, product: asset.product, version: asset.version ?? '' };
  return (
    <details class="edit-asset" open={edit ? true : undefined}>
      <summary>Edit {asset.asset_id}</summary>
      <form
        method="post"
        action={`/assets/${encodeURIComponent(asset.asset_id)}/edit?environment_id=${env.id}`}
        class="stack"
        id={`edit-${n}`}
        novalidate
      >
        <Csrf token={v.csrf} />
        {(['vendor', 'product', 'version'] as const).map((f) => (
          <label>
            {f[0].toUpperCase() + f.slice(1)}{' '}
            <input
              name={f}
              id={`edit-${n}-${f}`}
              maxLength={200}
              value={values[f]}
              aria-invalid={edit?.errors[f] ? 'true' : undefined}
              {...(f === 'vendor'
                ? suggestFrom('asset-vendor')
                : f === 'product'
                  ? suggestFrom('asset-product', `#edit-${n}-vendor`)
                  : {})}
            />
            <FieldError errors={edit?.errors} field={f} />
          </label>
        ))}
        <FieldError errors={edit?.errors} field="asset" />
        <button type="submit">Save {asset.asset_id}</button>
      </form>
    </details>
  );
}

/** Which part of an environment's assets a page shows: a page of nameplates, or one asset alone (`assetId`). */
export interface EnvironmentView {
  page: number;
  pages: number;
  assetId: string | null;
}

function EnvironmentPager({ env, view }: { env: Environment; view: EnvironmentView }) {
  if (view.assetId !== null)
    return (
      <p class="flash" id="asset-filter">
        Showing asset <strong>{view.assetId}</strong> only. <a href={`/environments/${env.id}`}>Show every asset</a>
      </p>
    );
  if (view.pages <= 1) return null;
  const at = (n: number) => `/environments/${env.id}?page=${n}#assets`;
  return (
    <nav class="pager" aria-label="Pages of assets">
      {view.page > 1 ? <a href={at(view.page - 1)}>Previous</a> : null}
      <span>
        Page {view.page} of {view.pages}
      </span>
      {view.page < view.pages ? <a href={at(view.page + 1)}>Next</a> : null}
    </nav>
  );
}

export function renderEnvironment(
  v: Viewer,
  env: Environment,
  assets: AssetAnswer[],
  total: number,
  form: {
    asset_id?: string;
    vendor?: string;
    product?: string;
    version?: string;
    errors?: Record<string, string>;
    /** A refused edit of a stored nameplate: its form shows the values sent and the messages. */
    edit?: AssetEdit;
  } = {},
  hosts: { items: StoredView[]; total: number } = { items: [], total: 0 },
  upload?: UploadOutcome,
  view: EnvironmentView = { page: 1, pages: 1, assetId: null },
): string {
  return html(
    <Layout title={env.name} current="/environments" viewer={v}>
      <p>
        <a href="/environments">All environments</a>
      </p>
      <h1>{env.name}</h1>
      {env.description ? <p class="sub">{env.description}</p> : null}
      <p>
        {total} assets · {env.host_count} Windows hosts ·{' '}
        <a href={`/environments/${env.id}/export.csv`}>Export the results as CSV</a> ·{' '}
        <a href={`/environments/${env.id}/inventory.csv`}>Export the inventory as CSV</a> ·{' '}
        <a href={`/environments/${env.id}/decisions`}>Decisions</a>
      </p>
      {canChange(v) ? (
        <>
          <h2>Add an asset</h2>
          <form method="post" action={`/environments/${env.id}/assets`} class="stack" novalidate>
            <Csrf token={v.csrf} />
            {(['asset_id', 'vendor', 'product', 'version'] as const).map((f) => (
              <label>
                {f === 'asset_id' ? 'Asset id' : f[0].toUpperCase() + f.slice(1)}{' '}
                <input
                  name={f}
                  id={`asset-${f}`}
                  maxLength={f === 'asset_id' ? 64 : 200}
                  value={form[f] ?? ''}
                  aria-invalid={form.errors?.[f] ? 'true' : undefined}
                  {...(f === 'vendor'
                    ? suggestFrom('asset-vendor')
                    : f === 'product'
                      ? suggestFrom('asset-product', '#asset-vendor')
                      : {})}
                />
                <FieldError errors={form.errors} field={f} />
              </label>
            ))}
            <SuggestionList list="asset-vendor" />
            <SuggestionList list="asset-product" />
            <FieldError errors={form.errors} field="asset" />
            <button type="submit">Add asset</button>
          </form>
          <UploadForms v={v} env={env} upload={upload} />
        </>
      ) : null}
      <WindowsHosts hosts={hosts.items} total={hosts.total} />
      <h2 id="assets">Assets and their CVEs</h2>
      <EnvironmentPager env={env} view={view} />
      {assets.length === 0 && !(view.assetId !== null && hosts.items.length) ? (
        <p class="none">
          {view.assetId === null
            ? 'No asset stored in this environment.'
            : 'No asset with this id in this environment.'}
        </p>
      ) : null}
      {assets.map((a, n) => (
        <section id={`asset-${a.asset.asset_id}`} class="card">
          <h3>
            {a.asset.asset_id}: {a.asset.vendor} {a.asset.product} {a.asset.version ?? '(version unknown)'}
          </h3>
          <p class="sub">
            {a.counts.affected} affected · {a.counts.needs_review} need review
          </p>
          {canChange(v) ? (
            <form
              class="inline"
              method="post"
              action={`/assets/${encodeURIComponent(a.asset.asset_id)}/delete?environment_id=${env.id}`}
            >
              <Csrf token={v.csrf} />
              <button type="submit" class="secondary">
                Remove {a.asset.asset_id}
              </button>
            </form>
          ) : null}
          {canChange(v) ? (
            <EditAsset
              v={v}
              env={env}
              asset={a.asset}
              n={n}
              edit={form.edit?.asset_id === a.asset.asset_id ? form.edit : undefined}
            />
          ) : null}
          {a.listed.length ? (
            <Scroll label={`CVEs of ${a.asset.asset_id}`}>
              <table>
                <thead>
                  <tr>
                    <th>CVE</th>
                    <th>Status</th>
                    <th>Deciding range</th>
                    <th>Fix</th>
                    <th>KEV</th>
                  </tr>
                </thead>
                <tbody>
                  {(view.assetId === null ? a.listed.slice(0, ASSET_CVE_ROWS) : a.listed).map((d) => (
                    <tr>
                      <td>
                        <a href={`/cve/${d.cve_id}`}>{d.cve_id}</a>
                        <br />
                        <span class="sub">{d.card.title}</span>
                        <br />
                        <a
                          href={`/environments/${env.id}/decisions/${d.cve_id}`}
                          aria-label={`Decision on ${d.cve_id}`}
                        >
                          Decision
                        </a>
                      </td>
                      <td>{d.v.status}</td>
                      <td>{d.v.reason}</td>
                      <td>{d.v.fixed_version ?? '—'}</td>
                      <td>{d.card.kev_flagged ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          ) : null}
          {view.assetId === null && a.listed.length > ASSET_CVE_ROWS ? (
            <p>
              <a href={`/environments/${env.id}?asset_id=${encodeURIComponent(a.asset.asset_id)}`}>
                All {a.listed.length} CVEs of {a.asset.asset_id}
              </a>{' '}
              (the first {ASSET_CVE_ROWS} by priority are shown here)
            </p>
          ) : null}
        </section>
      ))}
      {view.assetId === null ? <EnvironmentPager env={env} view={view} /> : null}
    </Layout>,
  );
}
