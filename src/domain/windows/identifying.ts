// Identifying data in host records (spec §2.6: "Identifying data must never be sent ... Such a field is refused
// and nothing of that host record is stored"). Pure. Values are normalised with NFKC first, so full-width digits
// or compatibility forms cannot disguise an address. Each field with a known format is checked
// against that format (windows-engine.md §3.1 and tools/collect-windows-host.ps1: ProductName, EditionID,
// DisplayVersion); free text is scanned for IP and MAC addresses, host and domain names, UNC and drive paths,
// URLs, e-mail addresses and Windows' generated default computer names.
import { BIDI_CONTROL, INVISIBLE, LONE_SURROGATE } from '../text.ts';

/** NFKC, then trimmed: the form every check (and the stored record) uses. */
export function normalizeText(v: string): string {
  return v.normalize('NFKC').trim();
}

// eslint-disable-next-line no-control-regex -- C0 (but tab, LF, CR), DEL and C1 are exactly what this looks for
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * Text that cannot be stored or shown faithfully: NUL and other control characters (tab and line breaks aside: see
 * innerBreak), a bidirectional control (domain/text.ts BIDI_CONTROL: it reorders what is shown), or a lone UTF-16
 * surrogate.
 */
export function badText(v: string): boolean {
  return CONTROL.test(v) || LONE_SURROGATE.test(v) || BIDI_CONTROL.test(v);
}

/**
 * A tab or line break inside a value (around it they are trimmed by normalizeText). Fields with a vocabulary of
 * their own read them as spacing ("Server\tCore"); an identifier or a name does not: "h\tx" is not one asset_id, and
 * "V2.9.2\nX" is not a version.
 */
export function innerBreak(v: string): boolean {
  return /[\t\n\r\u2028\u2029]/.test(v.trim());
}

/**
 * An invisible character in an identifier (domain/text.ts INVISIBLE, the one definition names use too): NFKC keeps
 * them, so "h\u200b1" and "h1" would be two assets shown alike.
 */
export function invisibleIn(v: string): boolean {
  return INVISIBLE.test(v);
}

export const INVISIBLE_MESSAGE =
  'invisible characters (soft hyphen, zero-width space, word joiner, byte order mark) are not allowed in an identifier';

const CONTROL_ALL = new RegExp(CONTROL.source, 'g');
const LONE_SURROGATE_ALL = new RegExp(LONE_SURROGATE.source, 'g');
const BIDI_ALL = new RegExp(BIDI_CONTROL.source, 'g');

/** `v` with every character badText refuses replaced by U+FFFD: a refused field name, named back readably. */
export function replaceBadText(v: string): string {
  return v
    .replace(CONTROL_ALL, '\uFFFD')
    .replace(LONE_SURROGATE_ALL, '\uFFFD')
    .replace(BIDI_ALL, '\uFFFD')
    .replace(/[\t\n\r\u2028\u2029]/g, '\uFFFD');
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4_IN = new RegExp(`(?<![\\d.])${OCTET}(?:\\.${OCTET}){3}(?![\\d])`);
const IPV6_IN = /(?<![0-9a-z:])(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?![0-9a-z:])/i;
const MAC_IN =
  /(?<![0-9a-f])(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}(?![0-9a-f])|(?<![0-9a-f])[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?![0-9a-f])/i;
const EMAIL_IN = /[^\s@]+@[^\s@]+\.[^\s@]{2,}/;
const UNC_IN = /\\\\[^\\\s]+|\/\/[^/\s]+\/|(?<![a-z])[a-z]:[\\/]/i;
const URL_IN = /\b[a-z][a-z0-9+.-]{1,15}:\/\//i;
// host.domain.tld: two or more labels ending in a letter-only label that is not a file extension.
const FQDN_IN = /(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,63})\.?(?![\w-])/gi;
const FILE_EXTENSIONS = new Set([
  'exe',
  'ps1',
  'psm1',
  'msi',
  'msu',
  'cab',
  'dll',
  'log',
  'txt',
  'csv',
  'xml',
  'json',
  'cmd',
  'bat',
  'vbs',
  'wim',
  'mum',
  'etl',
  'evtx',
  'reg',
  'inf',
]);
// Windows' generated default computer names: DESKTOP-XXXXXXX, LAPTOP-XXXXXXXX, WIN-XXXXXXXXXXX.
const DEFAULT_HOSTNAME_IN = /(?<![a-z0-9])(?:desktop|laptop|win)-[a-z0-9]{7,11}(?![a-z0-9])/i;

function hasFqdn(t: string): boolean {
  for (const m of t.matchAll(FQDN_IN)) {
    if (!FILE_EXTENSIONS.has(m[1].toLowerCase())) return true;
  }
  return false;
}

function hasIpv6(t: string): boolean {
  const m = IPV6_IN.exec(t);
  if (!m) return false;
  const s = m[0];
  // Times such as 08:00:00 are not addresses: an address has '::', a hex letter or at least five groups.
  // Stryker disable next-line OptionalChaining: match(/:/g) of a string that includes a colon is never null here (the :: and hex checks run first on colon-free strings)
  return s.includes('::') || /[a-f]/i.test(s) || (s.match(/:/g)?.length ?? 0) >= 5;
}

/** True when text contains an IP or MAC address, a domain or host name, a path, URL or e-mail address. */
export function containsIdentifying(text: string): boolean {
  const t = normalizeText(text);
  return (
    IPV4_IN.test(t) ||
    hasIpv6(t) ||
    MAC_IN.test(t) ||
    EMAIL_IN.test(t) ||
    UNC_IN.test(t) ||
    URL_IN.test(t) ||
    DEFAULT_HOSTNAME_IN.test(t) ||
    hasFqdn(t)
  );
}

// Names and versions (v1 vendor, product and version; v2 software name, publisher and version) legitimately hold
// dots, dotted quads and words like host names ("Node.js", "Npcap 1.0.0.1"), so they are scanned only for what
// a product name never holds: a MAC address (colon or dash form), an e-mail address, a 5 × 5 licence key.
const MAC_OR_EMAIL_IN = /\b(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}\b|[^\s@]+@[^\s@]+\.[a-z]{2,}/i;
const LICENSE_KEY_IN = /(?<![a-z0-9])[a-z0-9]{5}(?:-[a-z0-9]{5}){4}(?![a-z0-9])/i;

/** A MAC or e-mail address inside a name or version. */
export function macOrEmailIn(v: string): boolean {
  return MAC_OR_EMAIL_IN.test(v);
}

/** A MAC or e-mail address, or a licence key (XXXXX-XXXXX-XXXXX-XXXXX-XXXXX), inside a software name or version. */
export function identifyingInSoftware(v: string): boolean {
  return MAC_OR_EMAIL_IN.test(v) || LICENSE_KEY_IN.test(v);
}

// Whole-value forms refused as an asset_id on top of the scan: a bare MAC without separators, a single-label
// name followed by a dot.
const BARE_MAC_RE = /^[0-9a-f]{12}$/i;

// A value that says it is a serial number: "S/N 1234567", "SN: 5CG1234XYZ", "Serial 5CG1234XYZ", "SerialNumber=…"
// (spec §2.6: not a serial). The label needs a separator and the number a digit, so "serial-gw-1" and "serial
// gateway 3" (a serial-line gateway) stay identifiers. An unlabelled serial cannot be told from an identifier.
const SERIAL_LABEL_IN =
  /(?<![a-z0-9])(?:s\/n\s*[:=#]?\s*|(?:sn|serial(?:[\s_-]*(?:no\.?|nr\.?|num(?:ber)?|#))?)(?:\s+|\s*[:=#]\s*))[a-z0-9][a-z0-9-]*\d/i;

/** asset_id: a scrubbed identifier, not a hostname, IP, MAC, domain name or labelled serial number (after NFKC). */
export function identifyingAssetId(v: string): boolean {
  const t = normalizeText(v);
  return BARE_MAC_RE.test(t) || /\.$/.test(t) || SERIAL_LABEL_IN.test(t) || containsIdentifying(t);
}

// ---- fields with a format of their own ----------------------------------------------------------------

// ProductName (windows-engine.md §3.1): "Windows 10 Pro", "Windows 10 Enterprise LTSC 2019", "Windows Server 2022
// Datacenter: Azure Edition", "Windows Server 2019 Standard", "Windows 7 Professional", "Windows Embedded Standard",
// "Azure Stack HCI", "Microsoft Hyper-V Server 2019". A ProductName is a product family followed by known words,
// version numbers and years; anything else (a site, a customer, a host) is refused.
const PRODUCT_START_RE =
  /^(?:microsoft\s+)?(?:windows|hyper-v\s+server|azure\s+stack\s+hci|azure\s+local)(?=\s|$|[®™:(])/i;
const PRODUCT_WORDS = new Set([
  'server',
  'pro',
  'professional',
  'enterprise',
  'education',
  'home',
  'core',
  'datacenter',
  'standard',
  'essentials',
  'foundation',
  'storage',
  'web',
  'ltsc',
  'ltsb',
  'iot',
  'n',
  'kn',
  'k',
  'g',
  'e',
  's',
  'se',
  'single',
  'language',
  'country',
  'specific',
  'for',
  'workstations',
  'workstation',
  'evaluation',
  'eval',
  'azure',
  'edition',
  'stack',
  'hci',
  'embedded',
  'ultimate',
  'business',
  'starter',
  'premium',
  'basic',
  'team',
  'holographic',
  'mobile',
  'multi-session',
  'industry',
  'thin',
  'pc',
  'posready',
  'small',
  'multipoint',
  'cloud',
  'version',
  'insider',
  'preview',
  'technical',
  'installation',
  'r2',
  'x64',
  'x86',
  'arm64',
  'based',
  'systems',
  'system',
  'bit',
  'hyper-v',
  'rt',
  'xp',
  'vista',
  'media',
  'center',
  'tablet',
  'automotive',
  'compact',
  'handheld',
  'retail',
  'wedge',
  'hpc',
  'compute',
  'cluster',
  'hyper',
  'v',
  'and',
  'with',
  'local',
  'datacentre',
  'smart',
  'security',
  'ess',
  'sbs',
  'solution',
  'workgroup',
  'microsoft',
  'windows',
  'service',
  'pack',
  'sp1',
  'sp2',
  'sp3',
  'gac',
  'sac',
  'annual',
  'channel',
  'semi',
  'on',
  'premises',
  'education',
  'sku',
  'anywhere',
  'go',
  'china',
  'government',
  'gov',
]);
const PRODUCT_NUMBER_RE = /^(?:\d{1,4}(?:\.\d{1,2})?|\d{2}h[12]|sp\d|\d{2}-bit|\d{2}bit)$/i;

/** os_product: a Windows ProductName as the registry reports it (known words, versions and years only). */
export function validProductName(v: string): boolean {
  const t = normalizeText(v);
  if (t.length > 120 || !PRODUCT_START_RE.test(t)) return false;
  // Stryker disable Regex: the words are filtered for empty ones, so one whitespace or a run splits alike
  const words = t
    .replace(/[®™:(),/]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  // The word check splits on ':', so a MAC address ("00:1a:…" of number-like words) must be looked for whole.
  // Stryker restore Regex
  return words.every((w) => PRODUCT_WORDS.has(w.toLowerCase()) || PRODUCT_NUMBER_RE.test(w)) && !containsIdentifying(t);
}

// EditionID (windows-engine.md §3.1): the Windows edition identifiers, with their N/K/KN/S/G, Eval and Core variants.
const EDITION_RE = new RegExp(
  '^(?:' +
    'Core(?:N|SingleLanguage|CountrySpecific|Connected(?:N|SingleLanguage|CountrySpecific)?|ARM)?' +
    '|Professional(?:N|KN|K|Workstation(?:N)?|Education(?:N)?|SingleLanguage|CountrySpecific|S(?:N)?)?' +
    '|Education(?:N|KN)?|Enterprise(?:N|K|KN|S|SN|SK|G|GN)?(?:Eval)?|IoTEnterprise(?:S|SK|K)?|IoTUAP|IoTEdgeOS' +
    '|ServerRdsh|CloudEdition(?:N)?|Cloud(?:N)?|PPIPro|Andromeda|Holographic|Mobile(?:Enterprise)?' +
    '|Ultimate(?:N|E|K|KN)?|HomePremium(?:N|E|K|KN)?|HomeBasic(?:N|E|K|KN)?|Starter(?:N|E|K|KN)?|Business(?:N|K|KN)?' +
    '|Embedded(?:Industry|IndustryE|IndustryEval|Automotive|E|Eval|Standard|Compact|Handheld|POSReady)?|ThinPC|POSReady' +
    '|Server(?:Standard|Datacenter|Enterprise|Web|Solution|SolutionEM|Foundation|StorageStandard|StorageWorkgroup' +
    '|StorageEnterprise|StorageExpress|Essentials|HyperCore|Turbine|AzureStackHCI|AzureCloud|CloudStorage|ComputeCluster' +
    '|HPC|Home(?:Standard|Premium)?|SBSStandard|SBSPremium|SBS|MultiPoint(?:Standard|Premium)?|ARM64|Embedded(?:Solution)?)' +
    '(?:N|V)?(?:Eval)?(?:A)?(?:Cor|Core)?(?:Eval)?' +
    ')$',
  'i',
);

/** edition_id: one of the Windows EditionID values. */
export function validEditionId(v: string): boolean {
  return EDITION_RE.test(normalizeText(v));
}

/** display_version: DisplayVersion (20H2, 21H2, 24H2, ...) or, on older builds, ReleaseId (YYMM: 1507 ... 2009). */
export function validDisplayVersion(v: string): boolean {
  return /^(?:\d{2}H[12]|(?:1[5-9]|20)(?:0[1-9]|1[0-2]))$/i.test(normalizeText(v));
}
