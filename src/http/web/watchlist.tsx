// The signed-in app's watchlist page: what the organization watches, and for owners and admins the forms to watch
// and unwatch. Every form posts with the CSRF token.
import type { WatchEntry } from '../../services/watchlists.ts';
import { canChange, Csrf, FieldError, html, Layout, type Viewer, Scroll } from './layout.tsx';
import { SuggestionList, suggestFrom } from './suggest.tsx';

export function renderWatchlist(
  v: Viewer,
  entries: WatchEntry[],
  form: { entity_type?: string; entity_id?: string; errors?: Record<string, string>; notice?: string } = {},
): string {
  return html(
    <Layout title="Watchlist" current="/watchlist" viewer={v}>
      <h1>Watchlist</h1>
      {form.notice ? <p class="flash">{form.notice}</p> : null}
      <Scroll label="Watchlist">
        <table id="watchlist">
          <thead>
            <tr>
              <th>Type</th>
              <th>Watched</th>
              <th>Since</th>
              {canChange(v) ? (
                <th>
                  <span class="skip">Action</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr>
                <td>{e.entity_type}</td>
                <td>{e.entity_type === 'cve' ? <a href={`/cve/${e.entity_id}`}>{e.entity_name}</a> : e.entity_name}</td>
                <td>{e.created_at.slice(0, 10)}</td>
                {canChange(v) ? (
                  <td>
                    <form class="inline" method="post" action={`/watchlist/${e.id}/delete`}>
                      <Csrf token={v.csrf} />
                      <button type="submit" class="secondary" aria-label={`Stop watching ${e.entity_name}`}>
                        Stop watching
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {entries.length === 0 ? <p class="none">Nothing watched yet.</p> : null}
      {canChange(v) ? (
        <>
          <h2>Watch</h2>
          <form method="post" action="/watchlist" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Type{' '}
              <select name="entity_type" id="watch-type">
                {['vendor', 'product', 'protocol', 'cve'].map((t) => (
                  <option value={t} selected={form.entity_type === t}>
                    {t}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Id (vendor slug, product id, protocol name or CVE id; type part of a name for suggestions from the
              catalog){' '}
              <input
                name="entity_id"
                maxLength={200}
                value={form.entity_id ?? ''}
                aria-invalid={form.errors?.entity_id ? 'true' : undefined}
                {...suggestFrom('watch', '#watch-type')}
              />
              <FieldError errors={form.errors} field="entity_id" />
            </label>
            <SuggestionList list="watch" />
            <button type="submit">Watch</button>
          </form>
        </>
      ) : null}
    </Layout>,
  );
}
