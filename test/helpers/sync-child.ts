// A sync run in a child process, so a test can SIGKILL it mid-way (docs/reliability.md D3).
// Env: DATABASE_URL, FEED_URLS (JSON), ALLOW (egress allow list entry), STAGING, PAGE_SIZE.
import { openStore } from '../../src/store/db.ts';
import { createEgress } from '../../src/lib/egress.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { runSync } from '../../src/services/sync/sync.ts';
import { pipelineSink } from '../../src/services/sync/sync-sink.ts';

const store = openStore(process.env.DATABASE_URL!, { max: 4 });
const egress = createEgress({ allowList: [process.env.ALLOW!] });
const report = await runSync(
  {
    store,
    egress,
    sink: pipelineSink(store.db),
    clock: systemClock,
    log: { info() {}, warn() {} },
    urls: JSON.parse(process.env.FEED_URLS!),
    nvdApiKey: null,
    stagingRoot: process.env.STAGING!,
    nvdPageSize: Number(process.env.PAGE_SIZE),
    sleep: async () => {},
  },
  ['nvd'],
);
process.stdout.write(JSON.stringify(report));
await egress.close();
await store.close();
