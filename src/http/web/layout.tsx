// The one layout of every page (ADR 0094): the navigation, our stylesheet and htmx from /static/, and the page's
// content. Rendered to a string by preact-render-to-string, which escapes every text and attribute value.
import type { ComponentChildren, JSX } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { FastifyReply } from 'fastify';
import { HTMX, PAGE_CSP, STYLESHEET } from './assets.ts';

/** Who the page is for: signed-in pages show the navigation and the sign-out form. */
export interface Viewer {
  email?: string;
  role: string;
  csrf: string;
}

/** Whether the viewer may change the organization's data (owners and admins); a viewer sees no such form. */
export const canChange = (v: Viewer) => v.role === 'owner' || v.role === 'admin';

export const NAV: readonly { href: string; label: string }[] = [
  { href: '/overview', label: 'Overview' },
  { href: '/cves', label: 'CVEs' },
  { href: '/environments', label: 'Environments' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/watchlist', label: 'Watchlist' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/account', label: 'Account' },
  { href: '/training', label: 'Training' },
  { href: '/api/v1/health', label: 'Status' },
];

export function Csrf({ token }: { token: string | null | undefined }) {
  return token ? <input type="hidden" name="_csrf" value={token} /> : null;
}

interface LayoutProps {
  title: string;
  /** The navigation entry to mark as the current page. */
  current?: string;
  viewer?: Viewer | null;
  /** Extra <head> elements (a refresh, a description). */
  head?: ComponentChildren;
  children: ComponentChildren;
}

export function Layout({ title, current, viewer, head, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{`${title} · Vulnintel`}</title>
        <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}' />
        <link rel="stylesheet" href={`/static/${STYLESHEET.name}`} />
        <script src={`/static/${HTMX.name}`} defer></script>
        {head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={viewer ? '/overview' : '/login'}>
            Vulnintel
          </a>
          {viewer ? (
            <nav aria-label="Main">
              <ul>
                {NAV.map((n) => (
                  <li>
                    <a href={n.href} aria-current={n.href === current ? 'page' : undefined}>
                      {n.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {viewer ? (
            <form class="inline" method="post" action="/logout">
              <Csrf token={viewer.csrf} />
              <button type="submit" class="secondary">
                Sign out
              </button>
            </form>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

/** A whole page as HTML text. */
export function html(page: JSX.Element): string {
  return `<!doctype html>\n${renderToString(page)}`;
}

/** The headers every page carries (the CSP of ADR 0094); `cache` defaults to no-store (pages hold tenant data). */
export function pageHeaders(reply: FastifyReply, cache = 'no-store'): FastifyReply {
  return reply
    .header('Content-Security-Policy', PAGE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', cache)
    .header('Referrer-Policy', 'same-origin')
    .type('text/html; charset=utf-8');
}

/** A field's message under its input (the form shown again after bad input). */
export function FieldError({ errors, field }: { errors?: Record<string, string>; field: string }) {
  const m = errors?.[field];
  return m ? (
    <span class="field-error" id={`${field}-error`} role="alert">
      {m}
    </span>
  ) : null;
}

export const when = (iso: string | null | undefined) => (iso ?? '').slice(0, 16).replace('T', ' ');

/**
 * A table that may scroll sideways on a narrow screen: a named region in the tab order, so a keyboard user can
 * scroll it too (axe scrollable-region-focusable).
 */
export function Scroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
