// Feed URLs for `vulnintel sync` come from src/config.ts: the public endpoints by default, each overridable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, DEFAULT_FEED_URLS, loadConfig } from '../../src/config.ts';

test('feed URLs: public defaults, per-source overrides, invalid values named', () => {
  const dflt = loadConfig({});
  assert.deepEqual(dflt.feedUrls, DEFAULT_FEED_URLS);
  assert.equal(dflt.feedUrls.nvd, 'https://services.nvd.nist.gov/rest/json/cves/2.0');
  assert.equal(dflt.feedUrls.cwe, 'https://cwe.mitre.org/data/xml/cwec_latest.xml.zip');
  assert.deepEqual(dflt.egressAllowList, []);
  assert.equal(dflt.nvdApiKey, null);

  const c = loadConfig({
    VULNINTEL_FEED_URL_KEV: 'http://127.0.0.1:8089/kev.json',
    VULNINTEL_EGRESS_ALLOW: '127.0.0.1:8089, mirror.internal',
    NVD_API_KEY: 'k-123',
  });
  assert.equal(c.feedUrls.kev, 'http://127.0.0.1:8089/kev.json');
  assert.equal(c.feedUrls.epss, DEFAULT_FEED_URLS.epss);
  assert.deepEqual(c.egressAllowList, ['127.0.0.1:8089', 'mirror.internal']);
  assert.equal(c.nvdApiKey, 'k-123');
  assert.ok(Object.isFrozen(c.feedUrls));

  assert.throws(
    () => loadConfig({ VULNINTEL_FEED_URL_NVD: 'ftp://example.com/x' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'VULNINTEL_FEED_URL_NVD',
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_FEED_URL_CSAF: 'not a url' }),
    (e: unknown) => e instanceof ConfigError && /VULNINTEL_FEED_URL_CSAF: not a valid URL/.test(e.message),
  );
});

test('proxy variables: the one set is remembered for the sync errors (no proxy is ever used)', () => {
  assert.equal(loadConfig({}).proxyVariable, null);
  assert.equal(loadConfig({ https_proxy: 'http://proxy.plant.example:3128' }).proxyVariable, 'https_proxy');
  assert.equal(loadConfig({ HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://p:3128' }).proxyVariable, 'HTTPS_PROXY');
  assert.equal(loadConfig({ HTTPS_PROXY: '  ' }).proxyVariable, null);
});
