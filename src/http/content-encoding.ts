// The answer encodings the server compresses with, and the one a client's Accept-Encoding asks for: the v2 streamed
// answers (routes/v2/stream.ts) and the compressed pages (page-compression.ts) negotiate alike.

export type Encoding = 'br' | 'gzip';

/** The encoding to use for an Accept-Encoding header: br, then gzip (q-values honoured), else none. */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | null {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const q = new Map<string, number>();
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(v) ? v : 0);
  }
  const score = (n: string) => q.get(n) ?? (q.has('*') ? q.get('*')! : 0);
  const br = score('br');
  const gz = score('gzip');
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return null;
}
