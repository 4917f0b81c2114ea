// A scripted loopback webhook receiver (docs/reliability.md W4): it keeps the raw bytes and headers of every
// request, and answers by path: /ok 200, /no-content 204, /redirect 302 (to `redirectTo`), /gone 410, /error 500,
// /slow/<ms> 200 after a delay, /reset destroys the socket, /stall sends headers and then nothing, /endless a body
// that never ends. Anything else: 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, createHash } from 'node:crypto';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

export interface Receiver {
  port: number;
  base: string;
  /** host:port for VULNINTEL_WEBHOOK_EGRESS_ALLOW. */
  hostPort: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(opts: { redirectTo?: string } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, raw: Buffer.concat(chunks) });
      const slow = /^\/slow\/(\d+)/.exec(path);
      if (path.startsWith('/ok')) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else if (path.startsWith('/no-content')) res.writeHead(204).end();
      else if (path.startsWith('/redirect'))
        res.writeHead(302, { location: opts.redirectTo ?? 'http://127.0.0.1:1/' }).end();
      else if (path.startsWith('/gone')) res.writeHead(410).end('gone');
      else if (path.startsWith('/error')) res.writeHead(500).end('boom');
      else if (slow) {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) res.writeHead(200).end('late');
        }, Number(slow[1]));
        timers.add(t);
      } else if (path.startsWith('/reset')) req.socket.destroy();
      else if (path.startsWith('/stall')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      } else if (path.startsWith('/endless')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024, 0x61);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        pump();
      } else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    received,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver's check of the spec's signature (§6), recomputed over the raw bytes received, compared in full. */
export function verifySpecSignature(secret: string, r: Received): boolean {
  const key = createHash('sha256').update(secret).digest('hex');
  return r.headers['x-vulnintel-signature'] === `sha256=${createHmac('sha256', key).update(r.raw).digest('hex')}`;
}

/** A receiver's check of the Standard Webhooks signature, written from their spec (not from our code). */
export function verifyStandardSignature(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const ts = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${ts}.`), r.raw]))
    .digest('base64');
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}
