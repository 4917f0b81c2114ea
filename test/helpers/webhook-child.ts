// A delivering process that dies between the claim and the send (docs/reliability.md W8): it delivers one alert
// with the real webhook service and SIGKILLs itself right after the first delivery is claimed, before any byte is
// sent. Env: DATABASE_URL, VULNINTEL_DATA_DIR (the sealing key file), WEBHOOK_ALLOW (host:port), ORG_ID, ALERT (JSON).
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/db.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createWebhookService } from '../../src/services/webhooks.ts';

const store = openStore(process.env.DATABASE_URL!, { max: 2 });
const config = loadConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  VULNINTEL_DATA_DIR: process.env.VULNINTEL_DATA_DIR,
  LOG_LEVEL: 'silent',
  VULNINTEL_WEBHOOK_EGRESS_ALLOW: process.env.WEBHOOK_ALLOW,
});
const svc = createWebhookService({
  db: store.db,
  clock: systemClock,
  config,
  afterClaim: () => {
    process.stdout.write('claimed\n');
    process.kill(process.pid, 'SIGKILL');
  },
});
await svc.deliverAlert(Number(process.env.ORG_ID), JSON.parse(process.env.ALERT!));
process.stdout.write('not killed\n');
