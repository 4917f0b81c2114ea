// buildApp's egress dependency: made from the configured allow list when none is injected (docs/egress.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressError } from '../../src/lib/egress-policy.ts';
import { testApp } from '../helpers/app.ts';

async function startServer(body: string): Promise<{ port: number; hits: number; close(): Promise<void> }> {
  const state = { port: 0, hits: 0, close: async () => {} };
  const server = http.createServer((_req, res) => {
    state.hits++;
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as AddressInfo).port;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

test('buildApp: the default egress follows the configured allow list; the production default refuses loopback', async () => {
  const srv = await startServer('from-app');
  const strict = await testApp();
  const listed = await testApp({ env: { VULNINTEL_EGRESS_ALLOW: `127.0.0.1:${srv.port}` } });
  try {
    await assert.rejects(
      strict.app.deps.egress.fetch(`http://127.0.0.1:${srv.port}/`),
      (e) => e instanceof EgressError && e.code === 'scheme_not_allowed',
    );
    await assert.rejects(
      strict.app.deps.egress.fetch(`https://127.0.0.1:${srv.port}/`),
      (e) => e instanceof EgressError && e.code === 'blocked_address',
    );
    assert.equal(await (await listed.app.deps.egress.fetch(`http://127.0.0.1:${srv.port}/`)).text(), 'from-app');
    assert.equal(srv.hits, 1);
  } finally {
    await Promise.all([strict.close(), listed.close(), srv.close()]);
  }
});
