// The page tests' browser comes from npm (`npm ci && npm test` on a machine with only Node): the
// @sparticuz/chromium build with its bundled NSS/NSPR/expat and fonts, not Debian's chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseBrowser, launchBrowser, missingLibraries } from '../helpers/browser.ts';

test('the npm browser is chosen, with every shared library resolved and its own fonts', async () => {
  const c = await chooseBrowser();
  if (process.env.CHROMIUM_PATH) {
    assert.equal(c.source, 'CHROMIUM_PATH'); // an explicit choice wins
    return;
  }
  assert.equal(c.source, '@sparticuz/chromium');
  assert.deepEqual(missingLibraries(c), []);
  assert.match(c.env.LD_LIBRARY_PATH, /vulnintel-chromium-138\.[\d.]+-libs\/lib/);
});

test('launchBrowser renders a page and takes a screenshot (text drawn with the bundled fonts)', async () => {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 400, height: 100 } });
    await page.setContent('<span id="t" style="display: inline-block; font: 32px sans-serif">Vulnintel</span>');
    const box = await page.locator('#t').boundingBox();
    assert.ok(box && box.width > 100, `text has a width (${box?.width}px): a font was found`);
    const png = await page.screenshot();
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  } finally {
    await browser.close();
  }
});
