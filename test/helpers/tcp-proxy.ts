// A small TCP proxy for fault tests (the pg-boss halfOpenProxy pattern): sits between the app and PostgreSQL
// and can pass traffic, reset every connection (database unreachable), or black-hole it (half-open).
import net from 'node:net';

export type ProxyMode = 'pass' | 'reset' | 'blackhole';

export interface TcpProxy {
  port: number;
  mode: ProxyMode;
  /** Switch mode; 'reset' and 'blackhole' also cut the connections already open. */
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let mode: ProxyMode = 'pass';
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'blackhole') return; // accept, then never answer
    const upstream = net.connect(targetPort, targetHost);
    open.add(upstream);
    upstream.on('close', () => { open.delete(upstream); client.destroy(); });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get mode() { return mode; },
    set(m: ProxyMode) {
      mode = m;
      if (m !== 'pass') for (const s of open) s.destroy();
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
