// The client package's webhook checks (clients/typescript/webhooks.ts) accept exactly what the server signs
// (src/domain/webhooks.ts signedHeaders) and refuse any change: body, secret, id, timestamp, a timestamp outside the
// tolerance (boundary included), missing or malformed headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { signedHeaders } from '../../src/domain/webhooks.ts';
import { verifyStandardWebhook, verifyWebhookSignature } from '../../clients/typescript/webhooks.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/4WdTYr7D2Q=';
const BODY = Buffer.from('{"event":"webhook.test","version":"1.0","data":{"label":"Zürich"}}');
const TS = 1_795_000_000;
const NOW = new Date(TS * 1000);
const h = signedHeaders(SECRET, 'msg_42', TS, BODY);
const std = {
  'webhook-id': h['webhook-id'],
  'webhook-timestamp': h['webhook-timestamp'],
  'webhook-signature': h['webhook-signature'],
};

test("the spec signature: the server's header verifies over the raw bytes (Buffer or the same text); any change refuses", () => {
  assert.ok(verifyWebhookSignature(SECRET, BODY, h['x-vulnintel-signature']));
  assert.ok(verifyWebhookSignature(SECRET, BODY.toString('utf8'), h['x-vulnintel-signature']));
  assert.equal(
    verifyWebhookSignature(SECRET, Buffer.concat([BODY, Buffer.from('\n')]), h['x-vulnintel-signature']),
    false,
  );
  assert.equal(verifyWebhookSignature(`${SECRET}x`, BODY, h['x-vulnintel-signature']), false);
  assert.equal(
    verifyWebhookSignature(SECRET, BODY, h['x-vulnintel-signature'].slice('sha256='.length)),
    false,
    'the prefix is part of the value',
  );
  assert.equal(verifyWebhookSignature(SECRET, BODY, h['x-vulnintel-signature'].toUpperCase()), false);
  assert.equal(verifyWebhookSignature(SECRET, BODY, undefined), false);
  assert.equal(verifyWebhookSignature(SECRET, BODY, null), false);
});

test('the Standard Webhooks signature: verifies within the tolerance, both sides of now, and not one second past it', () => {
  assert.ok(verifyStandardWebhook(SECRET, BODY, std, { now: NOW }));
  assert.ok(verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS + 300) * 1000) }));
  assert.ok(verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS - 300) * 1000) }));
  assert.equal(verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS + 301) * 1000) }), false);
  assert.equal(verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS - 301) * 1000) }), false);
  assert.ok(verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS + 3600) * 1000), toleranceSec: 3600 }));
  assert.equal(
    verifyStandardWebhook(SECRET, BODY, std, { now: new Date((TS + 3601) * 1000), toleranceSec: 3600 }),
    false,
  );
});

test('the Standard Webhooks signature covers the id, the timestamp and the body; several signatures, one matching, pass', () => {
  assert.equal(verifyStandardWebhook(SECRET, BODY, { ...std, 'webhook-id': 'msg_43' }, { now: NOW }), false);
  assert.equal(
    verifyStandardWebhook(SECRET, BODY, { ...std, 'webhook-timestamp': String(TS + 1) }, { now: NOW }),
    false,
  );
  assert.equal(
    verifyStandardWebhook(SECRET, Buffer.from(BODY.toString().replace('Zürich', 'Zurich')), std, { now: NOW }),
    false,
  );
  assert.equal(
    verifyStandardWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', BODY, std, { now: NOW }),
    false,
  );
  assert.ok(
    verifyStandardWebhook(SECRET.slice('whsec_'.length), BODY, std, { now: NOW }),
    'the secret without its prefix is the same key',
  );
  assert.ok(
    verifyStandardWebhook(
      SECRET,
      BODY,
      { ...std, 'webhook-signature': `v1,bm90IGl0 ${std['webhook-signature']}` },
      { now: NOW },
    ),
  );
  assert.equal(
    verifyStandardWebhook(SECRET, BODY, { ...std, 'webhook-signature': 'v1,bm90IGl0' }, { now: NOW }),
    false,
  );
});

test('missing or malformed Standard Webhooks headers refuse', () => {
  for (const bad of [
    { ...std, 'webhook-id': undefined },
    { ...std, 'webhook-timestamp': null },
    { ...std, 'webhook-signature': '' },
    { ...std, 'webhook-timestamp': `${TS}.0` },
    { ...std, 'webhook-timestamp': ` ${TS}` },
    { ...std, 'webhook-timestamp': '1e9' },
  ]) {
    assert.equal(verifyStandardWebhook(SECRET, BODY, bad, { now: NOW }), false, JSON.stringify(bad));
  }
});
