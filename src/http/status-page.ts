// Content negotiation for the pages that also answer JSON (the status page of GET /api/v1/health, the error page).
// The status page itself: src/http/web/status.tsx.

/** True when the client prefers HTML over JSON (browsers); JSON stays the default for API clients. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = -1;
  let json = -1;
  for (const [i, part] of accept.split(',').entries()) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!(q > 0)) continue;
    // Rank by q, then by position (earlier wins).
    const rank = q * 1000 - i;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, rank);
    if (type === 'application/json') json = Math.max(json, rank);
  }
  return html > json;
}
