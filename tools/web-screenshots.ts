// Screenshots of every page of the web app at 1280×800 and 390×844 into docs/web/ (shown in docs/web.md):
//   npm run screenshots
// The app runs over a fresh test database (TEST_DATABASE_URL, else the local PostgreSQL at 127.0.0.1:5432) with the
// demo data of test/helpers/web-demo.ts, in the npm Chromium the page tests use (test/helpers/browser.ts).
import { mkdirSync } from 'node:fs';
import { launchBrowser } from '../test/helpers/browser.ts';
import { startWebDemo } from '../test/helpers/web-demo.ts';

const OUT = new URL('../docs/web/', import.meta.url).pathname;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** A file name for a page: its path without ids ("/environments/123/decisions/CVE-…" → "environment-decision"). */
function shotName(path: string): string {
  const p = path.split('?')[0];
  const named: [RegExp, string][] = [
    [/^\/environments\/\d+\/decisions\/CVE-/, 'decision'],
    [/^\/environments\/\d+\/decisions$/, 'decisions'],
    [/^\/environments\/\d+$/, 'environment'],
    [/^\/training\/.+/, 'training-module'],
    [/^\/cve\/.+/, 'cve'],
    [/^\/api\/v1\/health$/, 'status'],
    [/^\/webhooks$/, 'webhooks'],
  ];
  for (const [re, name] of named) if (re.test(p)) return name;
  return p.replace(/^\//, '').replace(/\//g, '-') || 'overview';
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const demo = await startWebDemo();
  const browser = await launchBrowser();
  try {
    for (const size of SIZES) {
      const ctx = await demo.signIn(browser, size);
      const page = await ctx.newPage();
      for (const path of demo.pages) {
        await page.goto(`${demo.base}${path}`);
        await page.screenshot({ path: `${OUT}${shotName(path)}-${size.width}.png` });
      }
      await ctx.close();
      const out = await browser.newContext({ viewport: size });
      const login = await out.newPage();
      await login.goto(`${demo.base}/login`);
      await login.screenshot({ path: `${OUT}login-${size.width}.png` });
      await out.close();
    }
    process.stdout.write(`${(demo.pages.length + 1) * SIZES.length} screenshots in docs/web/\n`);
  } finally {
    await browser.close();
    await demo.close();
  }
}

await main();
