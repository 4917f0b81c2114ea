// The sign-in pages (docs/accounts.md "Pages"): the form that emails a sign-in link and "check your email".
import { html, Layout } from './layout.tsx';

export function renderLoginPage(error?: string, next?: string | null): string {
  return html(
    <Layout title="Sign in">
      <h1>Sign in to Vulnintel</h1>
      {error ? <p class="danger">{error}</p> : null}
      {next ? <p class="note">Sign in to open that page.</p> : null}
      <form method="post" action="/login" class="stack">
        <label>
          Email address <input type="email" name="email" required maxLength={320} autoComplete="email" />
        </label>
        {next ? <input type="hidden" name="next" value={next} /> : null}
        <button type="submit">Email me a sign-in link</button>
      </form>
      <p class="note">We send a link valid for 15 minutes, usable once. No password.</p>
    </Layout>,
  );
}
export function renderCheckEmailPage(): string {
  return html(
    <Layout title="Check your email">
      <h1>Check your email</h1>
      <p>If an account uses this address, a sign-in link is on its way. It is valid for 15 minutes and works once.</p>
      <p>
        <a href="/login">Back to sign-in</a>
      </p>
    </Layout>,
  );
}
