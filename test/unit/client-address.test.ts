// The client address of a request for the edge limit (src/domain/client-address.ts; docs/limits.md): the trusted
// proxy list, IPv4-mapped addresses, and the walk of X-Forwarded-For from the right past trusted hops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientAddressResolver, normalizeAddress, parseTrustedProxies } from '../../src/domain/client-address.ts';

test('parseTrustedProxies: comma-separated IPs and CIDRs, trimmed, empty entries skipped; a bare IP is a full-length prefix', () => {
  assert.deepEqual(parseTrustedProxies(''), []);
  assert.deepEqual(parseTrustedProxies(' , ,'), []);
  assert.deepEqual(parseTrustedProxies(' 10.0.0.0/8 ,, 192.0.2.7, ::1 ,2001:db8::/32,172.16.0.0/012'), [
    { text: '10.0.0.0/8', address: '10.0.0.0', prefix: 8, family: 'ipv4' },
    { text: '192.0.2.7/32', address: '192.0.2.7', prefix: 32, family: 'ipv4' },
    { text: '::1/128', address: '::1', prefix: 128, family: 'ipv6' },
    { text: '2001:db8::/32', address: '2001:db8::', prefix: 32, family: 'ipv6' },
    { text: '172.16.0.0/12', address: '172.16.0.0', prefix: 12, family: 'ipv4' },
  ]);
  assert.deepEqual(
    parseTrustedProxies('0.0.0.0/0,::/0,198.51.100.1/32,2001:db8::1/128').map((r) => r.text),
    ['0.0.0.0/0', '::/0', '198.51.100.1/32', '2001:db8::1/128'],
  );
});

test('parseTrustedProxies: a bad entry is refused with its text', () => {
  const refuses = (raw: string, message: string) => assert.throws(() => parseTrustedProxies(raw), { message }, raw);
  refuses('proxy.example', '"proxy.example" is not an IP address or CIDR range');
  refuses('10.0.0.0/8, 10.0.0', '"10.0.0" is not an IP address or CIDR range');
  refuses('10.0.0.0/8/1', '"10.0.0.0/8/1" is not an IP address or CIDR range');
  refuses('/8', '"/8" is not an IP address or CIDR range');
  refuses('10.0.0.0/33', '"10.0.0.0/33": prefix length must be 0–32');
  refuses('::1/129', '"::1/129": prefix length must be 0–128');
  for (const bits of ['', 'x', 'x12', '12x', '-1', '1.5', '0008', ' 8']) {
    refuses(`10.0.0.0/${bits}`, `"10.0.0.0/${bits}": prefix length must be 0–32`);
  }
});

test('normalizeAddress: IPv4-mapped IPv6 as plain IPv4, anything else unchanged', () => {
  assert.equal(normalizeAddress('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(normalizeAddress('::FFFF:203.0.113.77'), '203.0.113.77');
  assert.equal(normalizeAddress('192.0.2.1'), '192.0.2.1');
  assert.equal(normalizeAddress('2001:db8::1'), '2001:db8::1');
  assert.equal(normalizeAddress('::ffff:c000:201'), '::ffff:c000:201');
  assert.equal(normalizeAddress('1::ffff:192.0.2.1'), '1::ffff:192.0.2.1');
  assert.equal(normalizeAddress('::ffff:192.0.2.1x'), '::ffff:192.0.2.1x');
  assert.equal(normalizeAddress('::ffff:192.0.2'), '::ffff:192.0.2');
  assert.equal(normalizeAddress('::ffff:1920.0.2.1'), '::ffff:1920.0.2.1');
  assert.equal(normalizeAddress('::ffff:192.0.2.1000'), '::ffff:192.0.2.1000');
  assert.equal(normalizeAddress('unknown'), 'unknown');
});

test('no trusted proxies: the peer, normalised; X-Forwarded-For is never read', () => {
  const r = clientAddressResolver([]);
  assert.equal(r('::ffff:203.0.113.9', '198.51.100.7'), '203.0.113.9');
  assert.equal(r('203.0.113.9', ['198.51.100.7']), '203.0.113.9');
  assert.equal(r(undefined, '198.51.100.7'), 'unknown');
});

test('trusted IPv4 proxy: the first untrusted hop from the right is the client', () => {
  const r = clientAddressResolver(parseTrustedProxies('10.0.0.0/8'));
  assert.equal(r('10.0.0.1', undefined), '10.0.0.1', 'no header: the proxy itself');
  assert.equal(r('203.0.113.5', '198.51.100.7'), '203.0.113.5', 'an untrusted peer: the header is not read');
  assert.equal(r('10.0.0.1', '198.51.100.7'), '198.51.100.7');
  assert.equal(r('::ffff:10.0.0.1', '198.51.100.7'), '198.51.100.7', 'a mapped peer is the proxy');
  assert.equal(r('10.0.0.1', '198.51.100.7, 10.0.0.2'), '198.51.100.7', 'past every trusted hop');
  assert.equal(
    r('10.0.0.1', '198.51.100.7, 203.0.113.1'),
    '203.0.113.1',
    'the nearest untrusted hop, not the leftmost',
  );
  assert.equal(r('10.0.0.1', '198.51.100.7,203.0.113.1 , 10.9.9.9,10.8.8.8'), '203.0.113.1');
  assert.equal(r('10.0.0.1', '10.0.0.5, 10.0.0.6'), '10.0.0.5', 'all hops trusted: the leftmost');
  assert.equal(r('10.0.0.1', '::ffff:198.51.100.7'), '198.51.100.7', 'a mapped hop is normalised');
  assert.equal(r('10.0.0.1', ' 198.51.100.7 ,, , '), '198.51.100.7', 'empty entries are skipped');
  assert.equal(r('10.0.0.1', ''), '10.0.0.1');
  assert.equal(r(undefined, '198.51.100.7'), 'unknown', 'an unknown peer is not trusted');
});

test('trusted proxy: several header lines are one list, in order', () => {
  const r = clientAddressResolver(parseTrustedProxies('10.0.0.0/8'));
  assert.equal(r('10.0.0.1', ['198.51.100.7', '10.0.0.3']), '198.51.100.7');
  assert.equal(r('10.0.0.1', ['10.0.0.3', '198.51.100.7']), '198.51.100.7');
  assert.equal(r('10.0.0.1', ['203.0.113.1, 198.51.100.7', '10.0.0.3']), '198.51.100.7');
  assert.equal(r('10.0.0.1', []), '10.0.0.1');
});

test('trusted proxy: garbage in the header stops the walk at the last trusted address', () => {
  const r = clientAddressResolver(parseTrustedProxies('10.0.0.0/8'));
  assert.equal(r('10.0.0.1', 'not-an-ip'), '10.0.0.1');
  assert.equal(r('10.0.0.1', 'garbage, 10.0.0.6'), '10.0.0.6');
  assert.equal(r('10.0.0.1', '198.51.100.7, garbage'), '10.0.0.1');
  assert.equal(r('10.0.0.1', '198.51.100.7, unknown, 10.0.0.6'), '10.0.0.6');
});

test('trusted IPv6 range and single address', () => {
  const r = clientAddressResolver(parseTrustedProxies('2001:db8::/32, 192.0.2.7'));
  assert.equal(r('2001:db8::1', '203.0.113.8'), '203.0.113.8');
  assert.equal(r('2001:db8::1', '2001:db8:1::2, 2001:db9::5'), '2001:db9::5');
  assert.equal(r('2001:db9::1', '203.0.113.8'), '2001:db9::1', 'outside the range');
  assert.equal(r('192.0.2.7', '2001:db8::9, 203.0.113.8'), '203.0.113.8');
  assert.equal(r('192.0.2.8', '203.0.113.8'), '192.0.2.8', 'a bare IP is a /32');
  assert.equal(r('192.0.2.7', '203.0.113.8, 2001:db8::9, 192.0.2.7'), '203.0.113.8');
});
