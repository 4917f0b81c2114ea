// The browser for page tests, on a machine that has only Node: Chromium from the npm package
// @sparticuz/chromium (a brotli-compressed build it unpacks to the system temp dir once), driven by playwright-core.
//
// That build links a few shared libraries a bare Debian does not have (NSS, NSPR, expat); the package ships them
// for Amazon Linux in al2023.tar.br, and they are unpacked next to it and put first on the browser's
// LD_LIBRARY_PATH, on every machine, so the tests always run the path a bare machine takes. Its fonts (and a
// fonts.conf that points at them) come from the package too, so text renders the same everywhere (screenshots).
//
// Order: CHROMIUM_PATH when set (an explicit choice), else the npm browser, else Debian's /usr/bin/chromium as a
// fallback (e.g. on a CPU the npm build does not support). No fallback left → the launch fails with every reason:
// a page test never skips for want of a browser.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export interface BrowserChoice {
  executablePath: string;
  /** Environment additions for the browser process. */
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | '@sparticuz/chromium' | 'debian';
}

/** Flags for headless tests: no sandbox (root in CI), no GPU, nothing phoned home. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--no-zygote',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Unpacks a .tar.br of the package into `dir` once (a rename makes the result appear whole or not at all). */
function unpackOnce(archive: string, dir: string): string {
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const r = spawnSync('tar', ['-x', '-C', tmp], { input: brotliDecompressSync(readFileSync(archive)) });
  if (r.status !== 0) throw new Error(`could not unpack ${archive}: ${r.stderr?.toString() || r.error?.message}`);
  try {
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw e; // another test process won the race
  }
  return dir;
}

async function npmChromium(): Promise<BrowserChoice> {
  const { default: sparticuz } = await import('@sparticuz/chromium');
  const executablePath = await sparticuz.executablePath();
  const require = createRequire(import.meta.url);
  // The package root (its exports do not include package.json): main is build/cjs/index.cjs.
  const root = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..');
  const bin = path.join(root, 'bin');
  const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const libs = unpackOnce(
    path.join(bin, 'al2023.tar.br'),
    path.join(os.tmpdir(), `vulnintel-chromium-${version}-libs`),
  );
  const env: Record<string, string> = {
    LD_LIBRARY_PATH: [path.join(libs, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    // executablePath() unpacked fonts.tar.br to <tmp>/fonts (fonts.conf with its directory).
    FONTCONFIG_PATH: path.join(os.tmpdir(), 'fonts'),
  };
  return { executablePath, env, source: '@sparticuz/chromium' };
}

/** Missing shared libraries of a binary under an environment (from ldd; [] when ldd is absent). */
export function missingLibraries(choice: BrowserChoice): string[] {
  const r = spawnSync('ldd', [choice.executablePath], { env: { ...process.env, ...choice.env }, encoding: 'utf8' });
  if (r.error) return [];
  return r.stdout
    .split('\n')
    .filter((l) => /not found/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]);
}

/** The browser the page tests use, and why: see the file comment for the order. */
export async function chooseBrowser(): Promise<BrowserChoice> {
  if (process.env.CHROMIUM_PATH) return { executablePath: process.env.CHROMIUM_PATH, env: {}, source: 'CHROMIUM_PATH' };
  const reasons: string[] = [];
  try {
    const c = await npmChromium();
    const missing = missingLibraries(c);
    if (missing.length === 0) return c;
    reasons.push(`@sparticuz/chromium: missing shared libraries ${missing.join(', ')}`);
  } catch (e) {
    reasons.push(`@sparticuz/chromium: ${(e as Error).message}`);
  }
  if (existsSync('/usr/bin/chromium')) return { executablePath: '/usr/bin/chromium', env: {}, source: 'debian' };
  reasons.push('/usr/bin/chromium: absent');
  throw new Error(`No browser for the page tests:\n- ${reasons.join('\n- ')}`);
}

/** Launches the headless browser for a page test (close it in `after`). */
export async function launchBrowser(): Promise<Browser> {
  const choice = await chooseBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: ARGS,
    env: { ...process.env, ...choice.env } as Record<string, string>,
  });
}
