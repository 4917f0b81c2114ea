// The machine baseline of the API benchmarks: a bare Fastify 5 server in its own process (no logger, no hooks,
// no plugins), answering the same ping body as the service. A ratio to it (service rate / bare rate, measured in
// the same run with the same load-generator settings) means the same on any machine.
// Usage: PORT=18999 npx tsx bench/bare-fastify.ts   (prints "listening" when ready; SIGTERM stops it)
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/api/v1/health/ping', async () => ({ ping: 'pong' }));
await app.listen({ port: Number(process.env.PORT ?? 18999), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
