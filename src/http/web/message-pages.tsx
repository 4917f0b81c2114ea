// The pages that only say something (docs/accounts.md "Pages"): the error page a browser gets where a page or an
// emailed link is refused, and the message page of an outcome with a way back.
import { html, Layout } from './layout.tsx';

/** Headings of the error page by status: what happened, in the reader's words. */
const ERROR_HEADINGS: Record<number, string> = {
  400: 'That request could not be read',
  401: 'Sign in again',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Not available here',
  409: 'Not possible now',
  410: 'No longer available',
  413: 'Too large',
  422: 'Please check what you sent',
  429: 'Too many requests',
  503: 'Unavailable for a moment',
};

/**
 * The error page a browser gets where a page, or a link followed from an email, is refused (docs/accounts.md
 * "Pages"): the heading, the envelope's message and field problems, the request id, and the ways on (sign in, the
 * account page). API clients keep the JSON envelope.
 */
export function renderErrorPage(e: {
  status: number;
  message: string;
  fields: { field: string; message: string }[];
  requestId: string;
  retryAfter: number | null;
}): string {
  const heading =
    ERROR_HEADINGS[e.status] ?? (e.status >= 500 ? 'Something went wrong on our side' : 'That did not work');
  return html(
    <Layout title={heading}>
      <h1>{heading}</h1>
      <p class="danger">{e.message}</p>
      {e.fields.length ? (
        <ul>
          {e.fields.map((f) => (
            <li>
              <code>{f.field}</code>: {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {e.retryAfter !== null ? <p>Try again in {e.retryAfter} seconds.</p> : null}
      <p>
        <a href="/login">Sign in</a> · <a href="/account">Your account</a> · <a href="/overview">Overview</a>
      </p>
      <p class="note">
        Request id {e.requestId} ({e.status}).
      </p>
    </Layout>,
  );
}
export function renderMessagePage(title: string, message: string, back = '/account'): string {
  return html(
    <Layout title={title}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href={back}>Back</a>
      </p>
    </Layout>,
  );
}
