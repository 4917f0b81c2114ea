// A small TCP proxy for fault tests (the pg-boss halfOpenProxy pattern): sits between the app and PostgreSQL
// and can pass traffic, reset every connection (database unreachable), black-hole it (half-open: connections
// stay open and new ones are accepted, but nothing is answered), or refuse new connections the way a PostgreSQL
// server does (a FATAL ErrorResponse with a SQLSTATE, e.g. 57P03 "cannot connect now", 53300 "too many
// connections", 55000 "not currently accepting connections").
import net from 'node:net';

export type ProxyMode = 'pass' | 'reset' | 'blackhole' | 'refuse';

export interface Refusal {
  code: string;
  message: string;
}

export interface TcpProxy {
  port: number;
  mode: ProxyMode;
  /**
   * Switch mode. 'reset' cuts the connections already open; 'blackhole' keeps them open but stops forwarding
   * (back to 'pass' forwards again); 'refuse' answers each new connection with `refusal` and closes it.
   */
  set(mode: ProxyMode, refusal?: Refusal): void;
  close(): Promise<void>;
}

/** A PostgreSQL ErrorResponse message ('E'), as the server sends it when it refuses a connection. */
export function pgErrorResponse(severity: string, code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...[
      ['S', severity],
      ['V', severity],
      ['C', code],
      ['M', message],
    ].map(([k, v]) => Buffer.from(`${k}${v}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';
  let refusal: Refusal = { code: '57P03', message: 'the database system is starting up' };
  const forward = (p: Pair) => {
    p.client.pipe(p.upstream);
    p.upstream.pipe(p.client);
  };
  const stall = (p: Pair) => {
    p.client.unpipe(p.upstream);
    p.upstream.unpipe(p.client);
    p.client.pause();
    p.upstream.pause();
  };
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'blackhole') return; // accept, then never answer
    if (mode === 'refuse') {
      // The server reads the startup packet, then answers with a FATAL error and closes.
      client.once('data', () => client.end(pgErrorResponse('FATAL', refusal.code, refusal.message)));
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    open.add(upstream);
    const pair = { client, upstream };
    pairs.add(pair);
    upstream.on('close', () => {
      open.delete(upstream);
      pairs.delete(pair);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    forward(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get mode() {
      return mode;
    },
    set(m: ProxyMode, r?: Refusal) {
      const was = mode;
      mode = m;
      if (r) refusal = r;
      if (m === 'reset') for (const s of open) s.destroy();
      else if (m === 'blackhole' && was !== 'blackhole') for (const p of pairs) stall(p);
      else if (m !== 'blackhole' && was === 'blackhole')
        for (const p of pairs) {
          forward(p);
          p.client.resume();
          p.upstream.resume();
        }
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
