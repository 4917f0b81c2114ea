import http from 'node:http';
import { verifyStandardWebhook, verifyWebhookSignature } from '../webhooks.ts';

const secret = process.env.VULNINTEL_WEBHOOK_SECRET; // whsec_…, returned once by POST /api/v1/webhooks
if (!secret) throw new Error('VULNINTEL_WEBHOOK_SECRET is not set');

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const h = (name: string) => req.headers[name] as string | undefined;
      const ok =
        verifyStandardWebhook(secret, raw, {
          'webhook-id': h('webhook-id'),
          'webhook-timestamp': h('webhook-timestamp'),
          'webhook-signature': h('webhook-signature'),
        }) && verifyWebhookSignature(secret, raw, h('x-vulnintel-signature'));
      if (!ok) return void res.writeHead(401).end();
      const event = JSON.parse(raw.toString('utf8')) as {
        event: string;
        data: { cve_id?: string; sage_priority?: string };
      };
      if (event.event === 'cve.alert') console.log(event.data.cve_id, event.data.sage_priority);
      res.writeHead(204).end();
    });
  })
  .listen(8443);
