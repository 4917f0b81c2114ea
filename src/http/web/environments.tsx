// The signed-in app's environments page: the organization's environments, and for owners and admins the forms to
// create and delete one. Every form posts with the CSRF token.
import type { Environment } from '../../services/environments.ts';
import { canChange, Csrf, FieldError, html, Layout, type Viewer, Scroll } from './layout.tsx';

export function renderEnvironments(
  v: Viewer,
  envs: Environment[],
  form: { name?: string; description?: string; errors?: Record<string, string> } = {},
): string {
  return html(
    <Layout title="Environments" current="/environments" viewer={v}>
      <h1>Environments</h1>
      <Scroll label="Environments">
        <table id="environments">
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>Windows hosts</th>
              <th>Created</th>
              {canChange(v) ? (
                <th>
                  <span class="skip">Action</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {envs.map((e) => (
              <tr>
                <td>
                  <a href={`/environments/${e.id}`}>{e.name}</a>
                </td>
                <td>{e.description}</td>
                <td>{e.host_count}</td>
                <td>{e.created_at.slice(0, 10)}</td>
                {canChange(v) ? (
                  <td>
                    <form class="inline" method="post" action={`/environments/${e.id}/delete`}>
                      <Csrf token={v.csrf} />
                      <button type="submit" class="danger" aria-label={`Delete ${e.name}`}>
                        Delete
                      </button>
                    </form>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
      {envs.length === 0 ? <p class="none">No environment yet.</p> : null}
      {canChange(v) ? (
        <>
          <h2>New environment</h2>
          <form method="post" action="/environments" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Name{' '}
              <input
                name="name"
                maxLength={100}
                value={form.name ?? ''}
                aria-invalid={form.errors?.name ? 'true' : undefined}
                aria-describedby={form.errors?.name ? 'name-error' : undefined}
              />
              <FieldError errors={form.errors} field="name" />
            </label>
            <label>
              Description <input name="description" maxLength={500} value={form.description ?? ''} />
              <FieldError errors={form.errors} field="description" />
            </label>
            <button type="submit">Create environment</button>
          </form>
        </>
      ) : (
        <p class="note">Owners and admins create and delete environments.</p>
      )}
    </Layout>,
  );
}
