// Import progress: a redrawn bar on a terminal, plain lines (at most one every few seconds) otherwise.
import type { Writable } from 'node:stream';

export interface ProgressSink {
  file(index: number, total: number, path: string, format: string): void;
  items(total: number): void;
  line(message: string): void;
  end(): void;
}

export const silentProgress: ProgressSink = { file() {}, items() {}, line() {}, end() {} };

export function createProgress(
  out: Writable & { isTTY?: boolean; columns?: number },
  opts: { tty?: boolean; intervalMs?: number; now?: () => number } = {},
): ProgressSink {
  const tty = opts.tty ?? Boolean(out.isTTY);
  const now = opts.now ?? Date.now;
  const interval = opts.intervalMs ?? (tty ? 100 : 5000);
  const started = now();
  let idx = 0;
  let total = 0;
  let label = '';
  let count = 0;
  let last = 0;
  let drawn = false;
  const rate = () => {
    const s = (now() - started) / 1000;
    return s > 0 ? Math.round(count / s) : 0;
  };
  const draw = (force = false) => {
    const t = now();
    if (!force && t - last < interval) return;
    last = t;
    if (tty) {
      const width = 24;
      const done = total ? Math.min(width, Math.round((idx / total) * width)) : 0;
      const text = `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${idx}/${total} ${label}  ${count.toLocaleString('en-US')} records  ${rate().toLocaleString('en-US')}/s`;
      out.write(`\r${text.slice(0, (out.columns ?? 120) - 1)}\x1b[K`);
      drawn = true;
    } else {
      out.write(`import: file ${idx}/${total} ${label}: ${count} records (${rate()}/s)\n`);
    }
  };
  return {
    file(index, n, path, format) {
      idx = index;
      total = n;
      label = `${format} ${path.split('/').pop()}`;
      draw(true);
    },
    items(n) {
      count = n;
      draw();
    },
    line(message) {
      if (tty && drawn) out.write('\r\x1b[K');
      out.write(`${message}\n`);
      drawn = false;
    },
    end() {
      draw(true);
      if (tty) out.write('\n');
    },
  };
}
