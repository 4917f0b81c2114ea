// URL helpers of the reference, patch and exploit rules (src/domain/urls.ts), on hosts and CNA addresses of the
// fixtures (NVD sourceIdentifier values, CSAF reference hosts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domainOfEmail, hostOf, registrableDomain } from '../../src/domain/urls.ts';

test('hostOf: the lower-cased host without a trailing dot; null for what is not a URL', () => {
  assert.equal(hostOf('https://www.fa.omron.co.jp/'), 'www.fa.omron.co.jp');
  assert.equal(hostOf('https://CERT-Portal.Siemens.com./productcert/pdf/ssa-1.pdf'), 'cert-portal.siemens.com');
  assert.equal(hostOf('http://packetstormsecurity.com:8080/files/1'), 'packetstormsecurity.com');
  assert.equal(hostOf('www.exploit-db.com/exploits/1'), null);
  assert.equal(hostOf(''), null);
});

test('registrableDomain: the last two labels, three under a known second-level suffix', () => {
  assert.equal(registrableDomain('www.fa.omron.co.jp'), 'omron.co.jp');
  assert.equal(registrableDomain('yd.mitsubishielectric.co.jp'), 'mitsubishielectric.co.jp');
  assert.equal(registrableDomain('cert-portal.siemens.com'), 'siemens.com');
  assert.equal(registrableDomain('www.ncsc.gov.uk'), 'ncsc.gov.uk');
  assert.equal(registrableDomain('msrc.microsoft.com'), 'microsoft.com');
  assert.equal(registrableDomain('siemens.com'), 'siemens.com');
  assert.equal(registrableDomain('co.jp'), 'co.jp');
  assert.equal(registrableDomain('localhost'), 'localhost');
  assert.equal(registrableDomain('a.b.example.org'), 'example.org');
});

test('domainOfEmail: the registrable domain of a CNA address (NVD sourceIdentifier); null when there is none', () => {
  assert.equal(domainOfEmail('Mitsubishielectric.Psirt@yd.MitsubishiElectric.co.jp'), 'mitsubishielectric.co.jp');
  assert.equal(domainOfEmail('cybersecurity@ch.abb.com'), 'abb.com');
  assert.equal(domainOfEmail('PSIRT@rockwellautomation.com'), 'rockwellautomation.com');
  assert.equal(domainOfEmail('a@b@hq.dhs.gov'), 'dhs.gov');
  assert.equal(domainOfEmail('cf45122d-9d50-442a-9b23-e05cde9943d8'), null);
  assert.equal(domainOfEmail('@microsoft.com'), null);
  assert.equal(domainOfEmail(''), null);
  assert.equal(domainOfEmail(null), null);
});
