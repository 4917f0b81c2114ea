// Summary of a V8 .cpuprofile (node --cpu-prof): self time by package (or source file) and by function, and
// inclusive time by function, as percentages of the sampled time. `sinceUs` (a CLOCK_MONOTONIC time in µs, as
// process.hrtime gives it, the clock V8 stamps its samples with on Linux) keeps only the samples from then on: the
// load phase without the start-up, which dominates a short profile on a loaded machine.
// Usage: npx tsx bench/cpuprofile-summary.ts FILE.cpuprofile [rows=30] [sinceUs]
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const where = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(`${process.cwd()}/`, '');
const pkg = (url: string) =>
  (url.includes('node_modules/') ? where(url).split('/')[where(url).startsWith('@') ? 1 : 0] : where(url)) ||
  '(native)';

export function summarize(file: string, rows = 30, sinceUs = 0): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Node[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
  };
  const selfUs = new Map<number, number>();
  let at = p.startTime;
  p.samples.forEach((id, i) => {
    at += p.timeDeltas[i] ?? 0;
    if (at >= sinceUs) selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fn = (n: Node) =>
    `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const byPkg = new Map<string, number>();
  const bySelf = new Map<string, number>();
  const byIncl = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const t = selfUs.get(n.id) ?? 0;
    if (!t) continue;
    total += t;
    byPkg.set(pkg(n.callFrame.url), (byPkg.get(pkg(n.callFrame.url)) ?? 0) + t);
    bySelf.set(fn(n), (bySelf.get(fn(n)) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = n.id; cur !== undefined; cur = parent.get(cur)) {
      const k = fn(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      byIncl.set(k, (byIncl.get(k) ?? 0) + t);
    }
  }
  const table = (title: string, m: Map<string, number>) =>
    `--- ${title}\n${[...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n')}\n`;
  return `sampled ${(total / 1e6).toFixed(2)} s\n${table('self time by package or file', byPkg)}${table('self time by function', bySelf)}${table('inclusive time by function', byIncl)}`;
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.stdout.write(summarize(process.argv[2], Number(process.argv[3] ?? 30), Number(process.argv[4] ?? 0)));
