// The signed-in app's webhooks page: each webhook with its state and recent deliveries, a test delivery's outcome,
// a new secret shown once, and for owners and admins the forms to create, test, re-enable, rotate and delete.
// Every form posts with the CSRF token.
import type { Delivery, Webhook } from '../../services/webhooks.ts';
import type { DeliveryResult } from '../../services/webhook-delivery.ts';
import { canChange, Csrf, FieldError, html, Layout, when, type Viewer, Scroll } from './layout.tsx';

export interface WebhooksPageState {
  errors?: Record<string, string>;
  label?: string;
  url?: string;
  /** A secret just made (create, rotate): shown once. */
  secret?: { webhookId: number; secret: string };
  test?: { webhookId: number; result: DeliveryResult };
  notice?: string;
  deliveries?: { webhookId: number; items: Delivery[] };
}

export function renderWebhooks(v: Viewer, hooks: Webhook[], s: WebhooksPageState = {}): string {
  const admin = canChange(v);
  return html(
    <Layout title="Webhooks" current="/webhooks" viewer={v}>
      <h1>Webhooks</h1>
      {s.notice ? <p class="flash">{s.notice}</p> : null}
      {s.secret ? (
        <>
          <p>The signing secret of webhook {s.secret.webhookId} (shown once; store it now):</p>
          <p class="secret" id="webhook-secret">
            {s.secret.secret}
          </p>
        </>
      ) : null}
      {s.test ? (
        <p class={s.test.result.outcome === 'delivered' ? 'flash' : 'alert-box'} id="test-outcome">
          Test delivery: {s.test.result.outcome}
          {s.test.result.http_status !== null ? ` (HTTP ${s.test.result.http_status})` : ''}
          {s.test.result.duration_ms !== null ? ` in ${s.test.result.duration_ms} ms` : ''}
          {s.test.result.error ? `: ${s.test.result.error}` : ''}
        </p>
      ) : null}
      {hooks.length === 0 ? <p class="none">No webhook yet.</p> : null}
      {hooks.map((w) => (
        <section class="card" id={`webhook-${w.id}`}>
          <h2>
            {w.label} <span class={`badge ${w.status === 'active' ? 'sev-LOW' : 'sev-CRITICAL'}`}>{w.status}</span>
          </h2>
          <p class="sub">
            {w.url} · {w.kind} · last delivery {w.last_delivery_at ? `${when(w.last_delivery_at)} UTC` : 'never'} ·{' '}
            {w.consecutive_failures} consecutive failures
          </p>
          {w.status === 'disabled' ? (
            <p class="alert-box">
              Disabled after {w.consecutive_failures} failed deliveries
              {w.disabled_at ? ` on ${when(w.disabled_at)} UTC` : ''}.
            </p>
          ) : null}
          {admin ? (
            <>
              <p>
                {w.status === 'disabled' ? (
                  <form class="inline" method="post" action={`/webhooks/${w.id}/enable`}>
                    <Csrf token={v.csrf} />
                    <button type="submit">Re-enable</button>
                  </form>
                ) : null}{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/test`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="secondary">
                    Send a test delivery
                  </button>
                </form>{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/rotate`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="secondary">
                    Rotate the secret
                  </button>
                </form>{' '}
                <form class="inline" method="post" action={`/webhooks/${w.id}/delete`}>
                  <Csrf token={v.csrf} />
                  <button type="submit" class="danger">
                    Delete
                  </button>
                </form>
              </p>
              <details>
                <summary>Edit {w.label}</summary>
                <form method="post" action={`/webhooks/${w.id}/edit`} class="stack">
                  <Csrf token={v.csrf} />
                  <label>
                    Label <input name="label" maxLength={100} value={w.label} />
                  </label>
                  <label>
                    URL <input name="url" type="url" maxLength={2048} value={w.url} />
                  </label>
                  <button type="submit">Save</button>
                </form>
              </details>
            </>
          ) : null}
          <p>
            <a href={`/webhooks?id=${w.id}#webhook-${w.id}`}>Recent deliveries</a>
          </p>
          {s.deliveries?.webhookId === w.id ? (
            s.deliveries.items.length ? (
              <Scroll label="Recent deliveries">
                <table class="deliveries">
                  <thead>
                    <tr>
                      <th>When (UTC)</th>
                      <th>Event</th>
                      <th>CVE</th>
                      <th>Status</th>
                      <th>HTTP</th>
                      <th>Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {s.deliveries.items.map((d) => (
                      <tr>
                        <td>{when(d.claimed_at)}</td>
                        <td>{d.event}</td>
                        <td>{d.cve_id ?? '—'}</td>
                        <td>{d.status}</td>
                        <td>{d.http_status ?? '—'}</td>
                        <td>{d.error ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Scroll>
            ) : (
              <p class="none">No delivery yet.</p>
            )
          ) : null}
        </section>
      ))}
      {admin ? (
        <>
          <h2>New webhook</h2>
          <form method="post" action="/webhooks" class="stack" novalidate>
            <Csrf token={v.csrf} />
            <label>
              Label{' '}
              <input
                name="label"
                maxLength={100}
                value={s.label ?? ''}
                aria-invalid={s.errors?.label ? 'true' : undefined}
              />
              <FieldError errors={s.errors} field="label" />
            </label>
            <label>
              URL (https){' '}
              <input
                name="url"
                type="url"
                maxLength={2048}
                value={s.url ?? ''}
                aria-invalid={s.errors?.url ? 'true' : undefined}
              />
              <FieldError errors={s.errors} field="url" />
            </label>
            <button type="submit">Create webhook</button>
          </form>
        </>
      ) : (
        <p class="note">Owners and admins manage webhooks.</p>
      )}
    </Layout>,
  );
}
