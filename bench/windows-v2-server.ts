// A v2 server for bench/windows-v2-stream.ts, built from the checkout at argv[2] (so the code before a change can
// be measured beside the code after it, in the same run, on the same database at argv[3]). Prints one JSON line
// {port, auth} once it listens. Never part of `npm test`.
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? '.');
const dbUrl = process.argv[3];
const { loadConfig } = await import(path.join(root, 'src/config.ts'));
const { buildApp } = await import(path.join(root, 'src/app.ts'));
const { openStore } = await import(path.join(root, 'src/store/db.ts'));
const { seedOrg, TEST_INTERNAL_KEY } = await import(path.join(root, 'test/helpers/app.ts'));
const store = openStore(dbUrl);
const config = loadConfig({
  DATABASE_URL: dbUrl,
  VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
  VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
  VULNINTEL_AUTO_IMPORT: 'false',
  LOG_LEVEL: 'silent',
});
const app = await buildApp({ config, store });
await app.listen({ host: '127.0.0.1', port: 0 });
const org = await seedOrg(store);
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port, auth: org.auth })}\n`);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => store.close())
    .finally(() => process.exit(0));
});
