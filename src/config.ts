// The one place that reads process.env. Validated, typed, frozen; invalid values fail at start with a
// message naming the variable (house style: config once).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePlanCaps, type PlanCapsTable } from './domain/plan-caps.ts';
import { parseTrustedProxies } from './domain/client-address.ts';
import { errorMessage } from './lib/errors.ts';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  internalKey: string | null;
  publicUrl: string;
  /** Health meta.uptime_url: where the public status of this deployment is watched. */
  uptimeUrl: string;
  environment: string;
  logLevel: string;
  /** statement_timeout for API queries, ms */
  statementTimeoutMs: number;
  /** Client-side deadline of every server query, ms (above statementTimeoutMs; docs/reliability.md D4). */
  dbDeadlineMs: number;
  /**
   * Time a client has to send a whole request, body included, ms (Node's requestTimeout): a body trickled in a
   * byte at a time is answered 408 then (docs/operations.md). Default 120 s: an 8 MiB batch on a slow link fits.
   */
  requestTimeoutMs: number;
  /** Run the background job workers in this process (`npm start`; VULNINTEL_WORKERS=0 for an API-only replica). */
  workers: boolean;
  /** Optional OpenAI-compatible analysis provider. */
  analysis: { baseUrl: string | null; model: string | null; apiKey: string | null };
  /** NVD API key for `vulnintel sync` (optional). */
  nvdApiKey: string | null;
  /** Feeds policy: hosts (host or host:port) that feed requests may reach even if private/loopback/http (docs/egress.md). */
  egressAllowList: string[];
  /**
   * The proxy variable set in the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, either case), or null. Never used
   * for a request (direct egress only, docs/egress.md): named in a sync's network errors, so an operator behind a
   * proxy learns why the feeds cannot be reached and what to do.
   */
  proxyVariable: string | null;
  /**
   * Webhooks policy, test/dev only (VULNINTEL_WEBHOOK_EGRESS_ALLOW, refused when VULNINTEL_ENV=production): receivers
   * a webhook may reach over http or at a private/loopback address. The feeds list never applies to webhooks.
   */
  webhookEgressAllowList: string[];
  /** Where the bundled snapshot lives. */
  snapshotDir: string;
  /** Import the bundled snapshot on an empty corpus at start. */
  autoImportSnapshot: boolean;
  /** Run `vulnintel sync` inside the server every N hours (0 = off; docs/sync.md). */
  syncIntervalHours: number;
  /** Live feed URLs for `vulnintel sync` (VULNINTEL_FEED_URL_<NAME>; defaults: the public endpoints, docs/sync.md). */
  feedUrls: Readonly<FeedUrls>;
  /** Entries of the CVE API response cache (docs/cve-api-performance.md); 0 disables it. */
  cveCacheEntries: number;
  /** Plain searches from the in-memory full-text index (docs/search.md); VULNINTEL_SEARCH_INDEX, default on. */
  searchIndex: boolean;
  /** Directory of the training modules (Markdown, docs/training.md); default: content/training of the package. */
  trainingDir: string;
  /**
   * Edge limit of anonymous, session and demo requests per client address (spec §8, docs/limits.md): requests per
   * minute (0 = off) and the trusted proxies whose X-Forwarded-For is believed (IPs or CIDRs; none by default).
   */
  edgeLimit: { perMinute: number; trustedProxies: string[] };
  /** Plan caps from VULNINTEL_PLAN_CAPS (JSON), over the defaults of src/domain/plan-caps.ts. */
  planCaps: Readonly<PlanCapsTable>;
  /**
   * The key that encrypts stored secrets (webhook signing secrets; docs/webhooks.md "Secrets at rest"), as 64 hex
   * characters: VULNINTEL_SECRET_KEY (or _FILE), 32 bytes in hex or base64. null: a key file generated under the
   * data dir (`secret.key`) is used.
   */
  secretKey: string | null;
  /** Outgoing email (SMTP_URL, smtp: or smtps:); null = links are written to the server log (docs/accounts.md). */
  smtpUrl: string | null;
  /** From address of outgoing email (VULNINTEL_MAIL_FROM). */
  mailFrom: string;
  /**
   * Read replicas (DATABASE_REPLICA_URL, comma-separated; docs/deploy.md): corpus reads go to one that is within
   * `maxLagMs` (VULNINTEL_REPLICA_MAX_LAG_MS) and has applied the primary's corpus version; checked every `checkMs`.
   */
  replicas: Readonly<{ urls: string[]; maxLagMs: number; checkMs: number }>;
}

/** How much longer than statement_timeout the client waits for a query before calling the database unavailable. */
export const DB_DEADLINE_MARGIN_MS = 5_000;

/** The public endpoints `vulnintel sync` reads by default (docs/sync.md). */
export const DEFAULT_FEED_URLS = {
  nvd: 'https://services.nvd.nist.gov/rest/json/cves/2.0',
  // The CVE Program's cvelistV5 releases (daily baseline + hourly delta archives), GitHub REST API.
  cve5: 'https://api.github.com/repos/CVEProject/cvelistV5/releases',
  kev: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  epss: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz',
  cwe: 'https://cwe.mitre.org/data/xml/cwec_latest.xml.zip',
  capec: 'https://raw.githubusercontent.com/mitre/cti/master/capec/2.1/stix-capec.json',
  csaf: 'https://raw.githubusercontent.com/cisagov/CSAF/develop/csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json',
  // MSRC CVRF v3.0 `/updates` index; each entry's CvrfUrl is the document's address (docs/windows-engine.md).
  msrc: 'https://api.msrc.microsoft.com/cvrf/v3.0/updates',
} as const;
export type FeedUrls = { [K in keyof typeof DEFAULT_FEED_URLS]: string };

export class ConfigError extends Error {
  constructor(
    public readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable}: ${message}`);
  }
}

type Env = Record<string, string | undefined>;

/** Reads VAR, or the contents of the file named by VAR_FILE (for secrets). */
function secret(env: Env, name: string): string | null {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct && file) throw new ConfigError(name, `set either ${name} or ${name}_FILE, not both`);
  if (file) {
    try {
      return readFileSync(file, 'utf8').trim() || null;
    } catch (e) {
      throw new ConfigError(`${name}_FILE`, `cannot read ${file}: ${errorMessage(e)}`);
    }
  }
  return direct && direct.length > 0 ? direct : null;
}

function int(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function url(name: string, raw: string, protocols: string[]): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(u.protocol)) throw new ConfigError(name, `protocol must be one of ${protocols.join(', ')}`);
  return raw;
}

/** A comma-separated list of `host` or `host:port` entries (IPv6 as `[addr]` or `[addr]:port`). */
function hostList(env: Env, name: string): string[] {
  const list = (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const a of list) {
    if (!/^[A-Za-z0-9.\-[\]:]+$/.test(a)) throw new ConfigError(name, `bad entry "${a}" (host or host:port)`);
  }
  return list;
}

/** Hours between scheduled syncs: 0 (off), a divisor of 24, or 168 (weekly): each is a cron slot (src/jobs/registry.ts). */
function syncHours(env: Env): number {
  const n = int(env, 'VULNINTEL_SYNC_INTERVAL_HOURS', 24, 0, 168);
  if (n !== 0 && n !== 168 && 24 % n !== 0) {
    throw new ConfigError(
      'VULNINTEL_SYNC_INTERVAL_HOURS',
      `must be 0 (off), a divisor of 24 (1, 2, 3, 4, 6, 8, 12, 24) or 168, got ${n}`,
    );
  }
  return n;
}

/** The training modules shipped with the package (content/training next to src/). */
export const DEFAULT_TRAINING_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'content',
  'training',
);

function trustedProxies(env: Env): string[] {
  const raw = env.VULNINTEL_TRUSTED_PROXIES ?? '';
  try {
    return parseTrustedProxies(raw).map((r) => r.text);
  } catch (e) {
    throw new ConfigError('VULNINTEL_TRUSTED_PROXIES', errorMessage(e));
  }
}

function planCaps(env: Env): PlanCapsTable {
  try {
    return parsePlanCaps(env.VULNINTEL_PLAN_CAPS);
  } catch (e) {
    throw new ConfigError('VULNINTEL_PLAN_CAPS', errorMessage(e));
  }
}

/** VULNINTEL_SECRET_KEY: 32 bytes, as 64 hex characters or base64; normalised to hex. */
function secretKey(env: Env): string | null {
  const raw = secret(env, 'VULNINTEL_SECRET_KEY');
  if (raw === null) return null;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return raw.toLowerCase();
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const b = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b.toString('hex');
  }
  throw new ConfigError(
    'VULNINTEL_SECRET_KEY',
    'must be 32 bytes, as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)',
  );
}

/** The feed addresses: VULNINTEL_FEED_URL_<SOURCE> (http or https) over DEFAULT_FEED_URLS, one per source. */
function feedUrls(env: Env): FeedUrls {
  const feed = (source: keyof FeedUrls): string => {
    const name = `VULNINTEL_FEED_URL_${source.toUpperCase()}`;
    const raw = env[name];
    return raw ? url(name, raw, ['http:', 'https:']) : DEFAULT_FEED_URLS[source];
  };
  return {
    nvd: feed('nvd'),
    cve5: feed('cve5'),
    kev: feed('kev'),
    epss: feed('epss'),
    cwe: feed('cwe'),
    capec: feed('capec'),
    csaf: feed('csaf'),
    msrc: feed('msrc'),
  };
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST && env.HOST.length > 0 ? env.HOST : '127.0.0.1';
  const dbRaw = secret(env, 'DATABASE_URL');
  const databaseUrl = dbRaw ? url('DATABASE_URL', dbRaw, ['postgres:', 'postgresql:']) : null;
  const dataDir = path.resolve(
    env.VULNINTEL_DATA_DIR && env.VULNINTEL_DATA_DIR.length > 0 ? env.VULNINTEL_DATA_DIR : './data',
  );
  const internalKey = secret(env, 'VULNINTEL_INTERNAL_KEY');
  if (internalKey !== null && internalKey.length < 16) {
    throw new ConfigError('VULNINTEL_INTERNAL_KEY', 'must be at least 16 characters');
  }
  const publicUrlRaw =
    env.VULNINTEL_PUBLIC_URL && env.VULNINTEL_PUBLIC_URL.length > 0
      ? env.VULNINTEL_PUBLIC_URL
      : `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const publicUrl = url('VULNINTEL_PUBLIC_URL', publicUrlRaw, ['http:', 'https:']).replace(/\/+$/, '');
  const uptimeUrl =
    env.VULNINTEL_UPTIME_URL && env.VULNINTEL_UPTIME_URL.length > 0
      ? url('VULNINTEL_UPTIME_URL', env.VULNINTEL_UPTIME_URL, ['http:', 'https:'])
      : `${publicUrl}/api/v1/health`;
  const environment =
    env.VULNINTEL_ENV && env.VULNINTEL_ENV.length > 0 ? env.VULNINTEL_ENV : (env.NODE_ENV ?? 'development');
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const baseUrl = env.VULNINTEL_ANALYSIS_BASE_URL
    ? url('VULNINTEL_ANALYSIS_BASE_URL', env.VULNINTEL_ANALYSIS_BASE_URL, ['http:', 'https:'])
    : null;
  const model = env.VULNINTEL_ANALYSIS_MODEL || null;
  if (baseUrl && !model)
    throw new ConfigError('VULNINTEL_ANALYSIS_MODEL', 'required when VULNINTEL_ANALYSIS_BASE_URL is set');
  const allow = hostList(env, 'VULNINTEL_EGRESS_ALLOW');
  const webhookAllow = hostList(env, 'VULNINTEL_WEBHOOK_EGRESS_ALLOW');
  if (webhookAllow.length > 0 && environment === 'production') {
    throw new ConfigError(
      'VULNINTEL_WEBHOOK_EGRESS_ALLOW',
      'is a test/dev setting and is refused when VULNINTEL_ENV=production',
    );
  }
  const smtp = secret(env, 'SMTP_URL');
  const statementTimeoutMs = int(env, 'VULNINTEL_STATEMENT_TIMEOUT_MS', 15000, 100, 600000);
  return Object.freeze({
    port,
    host,
    databaseUrl,
    dataDir,
    internalKey,
    publicUrl,
    uptimeUrl,
    environment,
    logLevel,
    statementTimeoutMs,
    dbDeadlineMs: int(env, 'VULNINTEL_DB_DEADLINE_MS', statementTimeoutMs + DB_DEADLINE_MARGIN_MS, 100, 3_600_000),
    requestTimeoutMs: int(env, 'VULNINTEL_REQUEST_TIMEOUT_MS', 120_000, 200, 3_600_000),
    workers: bool(env, 'VULNINTEL_WORKERS', true),
    analysis: Object.freeze({ baseUrl, model, apiKey: secret(env, 'VULNINTEL_ANALYSIS_API_KEY') }),
    nvdApiKey: secret(env, 'NVD_API_KEY'),
    egressAllowList: allow,
    proxyVariable:
      ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'].find(
        (n) => (env[n] ?? '').trim() !== '',
      ) ?? null,
    webhookEgressAllowList: webhookAllow,
    snapshotDir: path.resolve(
      env.VULNINTEL_SNAPSHOT_DIR && env.VULNINTEL_SNAPSHOT_DIR.length > 0 ? env.VULNINTEL_SNAPSHOT_DIR : './snapshot',
    ),
    autoImportSnapshot: bool(env, 'VULNINTEL_AUTO_IMPORT', true),
    syncIntervalHours: syncHours(env),
    feedUrls: Object.freeze(feedUrls(env)),
    cveCacheEntries: int(env, 'VULNINTEL_CVE_CACHE_ENTRIES', 20000, 0, 10_000_000),
    searchIndex: bool(env, 'VULNINTEL_SEARCH_INDEX', true),
    trainingDir:
      env.VULNINTEL_TRAINING_DIR && env.VULNINTEL_TRAINING_DIR.length > 0
        ? path.resolve(env.VULNINTEL_TRAINING_DIR)
        : DEFAULT_TRAINING_DIR,
    edgeLimit: Object.freeze({
      perMinute: int(env, 'VULNINTEL_EDGE_LIMIT_PER_MINUTE', 60, 0, 1_000_000_000),
      trustedProxies: trustedProxies(env),
    }),
    planCaps: planCaps(env),
    secretKey: secretKey(env),
    smtpUrl: smtp ? url('SMTP_URL', smtp, ['smtp:', 'smtps:']) : null,
    replicas: Object.freeze({
      urls: (secret(env, 'DATABASE_REPLICA_URL') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((u) => url('DATABASE_REPLICA_URL', u, ['postgres:', 'postgresql:'])),
      maxLagMs: int(env, 'VULNINTEL_REPLICA_MAX_LAG_MS', 10_000, 0, 3_600_000),
      checkMs: int(env, 'VULNINTEL_REPLICA_CHECK_MS', 1000, 50, 60_000),
    }),
    mailFrom:
      env.VULNINTEL_MAIL_FROM && env.VULNINTEL_MAIL_FROM.length > 0
        ? env.VULNINTEL_MAIL_FROM
        : `Vulnintel <no-reply@${new URL(publicUrl).hostname}>`,
  });
}
