// Canonical vendors: the CPE vendor token (NVD), the CSAF vendor branch name, the KEV vendorProject and the
// MSRC vendor all resolve to one vendor with a stable slug. Pure. The alias table is documented in
// docs/enrichment.md ("Vendors"). Names not in the table are canonicalised by their normalised key.
import { memoTable } from './memo.ts';

export interface VendorEntry {
  slug: string;
  name: string;
  /** Spellings seen in the feeds (CPE tokens, CSAF and KEV names). */
  aliases: string[];
  /** Registrable domains the vendor publishes on (for vendor advisories, spec §2.5). */
  domains: string[];
  /** Industrial-control vendor (ICS relevance input). */
  ics: boolean;
}

// slug | display name | aliases (any spelling; normalised before lookup) | own domains | ics
const TABLE = `
siemens|Siemens|siemens ag;siemens energy;siemens healthineers;siemens industry software;siemens_ag|siemens.com;siemens-energy.com;siemens-healthineers.com|ics
schneider-electric|Schneider Electric|schneider-electric;schneider;schneider electric software;schneider electric se;schneider_electric;se;aveva software and schneider electric software|se.com;schneider-electric.com|ics
rockwell-automation|Rockwell Automation|rockwellautomation;rockwell;allen-bradley;allen bradley|rockwellautomation.com|ics
mitsubishi-electric|Mitsubishi Electric|mitsubishielectric;mitsubishi;mitsubishi electric corporation;mitsubishi electric europe;iconics mitsubishi electric;mitsubishi electric india|mitsubishielectric.com;mitsubishielectric.co.jp|ics
delta-electronics|Delta Electronics|deltaww;delta electronics inc;delta_electronics;delta|deltaww.com|ics
hitachi-energy|Hitachi Energy|hitachienergy;hitachi energy ltd;hitachi abb power grids|hitachienergy.com|ics
abb|ABB|abb ltd;abb group|abb.com|ics
ge|General Electric|ge;general electric (ge);ge digital;ge vernova;ge grid solutions;gevernova|ge.com;gevernova.com|ics
ge-healthcare|GE Healthcare|gehealthcare;ge_healthcare|gehealthcare.com|ics
omron|Omron|omron corporation|omron.com;omron.co.jp|ics
moxa|Moxa|moxa inc|moxa.com|ics
emerson|Emerson|emerson electric;emerson process management|emerson.com|ics
honeywell|Honeywell|honeywell international;matrikon honeywell;matrikon;matrikonopc|honeywell.com|ics
yokogawa|Yokogawa|yokogawa electric;yokogawa electric corporation|yokogawa.com|ics
phoenix-contact|Phoenix Contact|phoenixcontact;phoenix contact gmbh and co kg;phoenix contact innominate security technologies;phoenixcontact-software;phoenix contact software|phoenixcontact.com|ics
advantech|Advantech|advantech co;b+b smartworx advantech|advantech.com|ics
aveva|AVEVA|aveva software;aveva group|aveva.com|ics
osisoft|OSIsoft|osisoft llc|osisoft.com|ics
fuji-electric|Fuji Electric|fujielectric;fuji electric co|fujielectric.com|ics
johnson-controls|Johnson Controls|johnsoncontrols;johnson controls international;johnson contols;sensormatic electronics;sensormatic;kantech;exacq technologies;tyco|johnsoncontrols.com|ics
wago|WAGO|wago kontakttechnik|wago.com|ics
codesys|CODESYS|codesys gmbh;3s-smart software solutions;3s-smart;3s|codesys.com|ics
eaton|Eaton|eaton corporation|eaton.com|ics
beckhoff|Beckhoff|beckhoff automation|beckhoff.com|ics
bosch-rexroth|Bosch Rexroth|boschrexroth|boschrexroth.com|ics
weidmueller|Weidmüller|weidmueller;weidmuller|weidmueller.com|ics
pilz|Pilz|pilz gmbh and co kg (pilz)|pilz.com|ics
sick|SICK|sick ag|sick.com|ics
inductive-automation|Inductive Automation|inductiveautomation|inductiveautomation.com|ics
iconics|ICONICS|iconics inc|iconics.com|ics
red-lion|Red Lion|redlion;red lion controls|redlion.net|ics
automationdirect|AutomationDirect|automation direct;automationdirect.com|automationdirect.com|ics
unitronics|Unitronics|unitronics plc|unitronics.com|ics
wecon|WECON|wecon technology|we-con.com.cn|ics
weintek|Weintek|weintek labs|weintek.com|ics
fatek|FATEK Automation|fatek;fatek automation corp|fatek.com|ics
horner|Horner Automation|horner;horner apg|hornerautomation.com|ics
schweitzer-engineering|Schweitzer Engineering Laboratories|schweitzer engineering laboratories (sel);sel;selinc|selinc.com|ics
hms-networks|HMS Networks|hms;ewon;hms industrial networks|hms-networks.com|ics
westermo|Westermo|westermo network technologies|westermo.com|ics
hirschmann|Hirschmann|hirschmann automation and control;belden;hirschmann automation and control belden|belden.com;hirschmann.com|ics
tridium|Tridium|tridium inc|tridium.com|ics
trane|Trane|trane technologies|trane.com|ics
sauter|SAUTER|sauter controls;fr sauter|sauter-controls.com|ics
mbconnect-line|MB connect line|mbconnectline;mb connect line gmbh|mbconnectline.com|ics
softing|Softing|softing industrial automation|softing.com|ics
triangle-microworks|Triangle MicroWorks|trianglemicroworks|trianglemicroworks.com|ics
kunbus|KUNBUS|kunbus gmbh|kunbus.com|ics
opto22|Opto 22|opto22;opto 22|opto22.com|ics
panasonic|Panasonic|panasonic corporation|panasonic.com|ics
fanuc|FANUC|fanuc corporation|fanuc.co.jp|ics
kuka|KUKA|kuka ag|kuka.com|ics
universal-robots|Universal Robots|universal_robots|universal-robots.com|ics
jtekt|JTEKT|jtekt electronics;jtekt corporation|jtekt.co.jp|ics
idec|IDEC|idec corporation|idec.com|ics
myscada|mySCADA|myscada technologies|myscada.org|ics
ecava|Ecava|ecava sdn bhd|ecava.com|ics
progea|Progea|progea srl|progea.com|ics
saia-burgess|Saia Burgess Controls|saia-burgess;saia burgess|saia-pcd.com|ics
wibu-systems|Wibu-Systems|wibu;wibu-systems ag|wibu.com|ics
ptc|PTC|ptc inc;kepware|ptc.com|ics
subnet-solutions|Subnet Solutions|subnet;subnet solutions inc|subnet.com|ics
efacec|EFACEC|efacec|efacec.com|ics
nari|NARI|nari technology|nari-tech.com|ics
sierra-wireless|Sierra Wireless|sierrawireless|sierrawireless.com|ics
digi|Digi International|digi;digi international inc|digi.com|ics
inhand-networks|InHand Networks|inhandnetworks;inhand|inhandnetworks.com|ics
teltonika|Teltonika|teltonika networks;teltonika-networks|teltonika-networks.com|ics
ovarro|Ovarro|ovarro ltd|ovarro.com|ics
carlo-gavazzi|Carlo Gavazzi|carlogavazzi|gavazziautomation.com|ics
baker-hughes|Baker Hughes|bently nevada baker hughes;bently nevada;baker hughes bently nevada;baker hughes - bently nevada|bakerhughes.com|ics
philips|Philips|koninklijke philips;phillips|philips.com|ics
bd|Becton, Dickinson and Company|becton dickinson and company (bd);bd;becton dickinson|bd.com|ics
medtronic|Medtronic|medtronic plc|medtronic.com|ics
baxter|Baxter|baxter international;hillrom;hill-rom|baxter.com|ics
b-braun|B. Braun|b braun medical;b braun;b braun melsungen;b. braun melsungen ag|bbraun.com|ics
b-and-r|B&R Industrial Automation|b&r;b and r industrial automation;br-automation|br-automation.com|ics
loytec|LOYTEC|loytec electronics|loytec.com|ics
trihedral|Trihedral|trihedral engineering;trihedral engineering limited|trihedral.com|ics
sielco|Sielco|sielco sistemi||ics
franklin-fueling-systems|Franklin Fueling Systems|franklin fueling system;franklin electric fueling systems;franklin electric|franklinfueling.com|ics
opw|OPW Fuel Management Systems|opw fuel managements systems;opw|opwglobal.com|ics
geutebrueck|Geutebrück|geutebruck;geutebrueck|geutebrueck.com|
lcds|LCDS - Leão Consultoria e Desenvolvimento de Sistemas|lcds leao consultoria e desenvolvimento de sistemas;lcds leo consultoria e desenvolvimento de sistemas ltda me;lcds||ics
cambium-networks|Cambium Networks|cambium|cambiumnetworks.com|
keysight|Keysight Technologies|keysight|keysight.com|
fujitsu|Fujitsu|fujitsu limited;fujitsu software|fujitsu.com|
zebra|Zebra Technologies|zebra|zebra.com|
xiongmai|Xiongmai Technology|hangzhou xiongmai technology;xiongmai||
lenels2|LenelS2|carrier lenels2|lenels2.com|
meta-platforms|Meta Platforms|meta;facebook|meta.com;facebook.com|
qnap|QNAP|qnap systems|qnap.com|
treck|Treck|treck tcp/ip stack;treck tcp ip stack|treck.com|
php|PHP|php group|php.net|
microsoft|Microsoft|microsoft corporation|microsoft.com|
cisco|Cisco|cisco systems|cisco.com|
apple|Apple|apple inc|apple.com|
google|Google|google llc|google.com|
oracle|Oracle|oracle corporation|oracle.com|
ivanti|Ivanti|ivanti inc|ivanti.com|
fortinet|Fortinet|fortinet inc|fortinet.com|
vmware|VMware|vmware inc;broadcom vmware;vmware tanzu|vmware.com;broadcom.com|
adobe|Adobe|adobe systems;adobe inc|adobe.com|
progress|Progress|progress software;progress software corporation|progress.com|
citrix|Citrix|citrix systems|citrix.com|
palo-alto-networks|Palo Alto Networks|paloaltonetworks|paloaltonetworks.com|
juniper|Juniper Networks|juniper;juniper networks|juniper.net|
linux|Linux|linux kernel;the linux foundation|kernel.org|
milestone-systems|Milestone Systems|milestonesys;milestone systems a/s|milestonesys.com|
hikvision|Hikvision|hangzhou hikvision digital technology|hikvision.com|
dahua|Dahua Technology|dahuasecurity;dahua technology co|dahuasecurity.com|
intel|Intel|intel corporation|intel.com|
haxx|curl (Haxx)|curl;haxx|curl.se|
sap|SAP|sap se;sap_se;sapse|sap.com|
samsung|Samsung|samsung mobile;samsung electronics;samsung open source|samsung.com;samsungmobile.com|
hpe|Hewlett Packard Enterprise|hewlett packard enterprise;hewlett packard enterprise (hpe)|hpe.com|
ashlar-vellum|Ashlar-Vellum|ashlar;ashlar vellum|ashlar.com|
unisoc|Unisoc|unisoc technologies;unisoc (shanghai) technologies co., ltd.|unisoc.com|
apache|Apache|apache software foundation;apache_software_foundation|apache.org|
dassault-systemes|Dassault Systèmes|dassault systemes;dassault;3ds;dassaultsystmes|3ds.com|
jenkins|Jenkins|jenkins project|jenkins.io|
python|Python|python software foundation|python.org|
wireshark|Wireshark|wireshark foundation|wireshark.org|
wikimedia|Wikimedia|the wikimedia foundation;wikimedia foundation|wikimedia.org|
zoom|Zoom|zoom communications;zoom video communications|zoom.us;zoom.com|
axis|Axis|axis communications|axis.com|
silicon-labs|Silicon Labs|silabs;silabs.com;silicon laboratories|silabs.com|
eclipse|Eclipse|eclipse foundation|eclipse.org|
foxit|Foxit|foxit software|foxit.com;foxitsoftware.com|
tenda|Tenda|tendacn|tenda.com.cn|
fedora|Fedora|fedora project|fedoraproject.org|
lg-electronics|LG Electronics|lg;lg electronics|lg.com|
softether|SoftEther VPN|softether vpn|softether.org|
zephyr-project|Zephyr Project|zephyrproject;zephyrproject-rtos|zephyrproject.org|
litespeed|LiteSpeed|litespeedtech;litespeed technologies|litespeedtech.com|
gradio|Gradio|gradio-app;gradio project|gradio.app|
a10-networks|A10 Networks|a10;a10networks|a10networks.com|
ruby|Ruby|ruby-lang|ruby-lang.org|
wordpress|WordPress|wordpress foundation|wordpress.org|
draeger|Dräger|drager;drägerwerk;draegerwerk;drger|draeger.com|
yifan|Yifan|yifanwireless;yifan wireless||
sante|Sante|santesoft||
openplc|OpenPLC|openplcproject;openplc project||
deno|Deno|denoland||
oceanic-software|Oceanic Software|oceanicsoft||
hcl-software|HCL Software|hcltech;hcl technologies|hcl-software.com;hcltech.com|
xwiki|XWiki|xwiki sas;xwikisas|xwiki.org;xwiki.com|
zoho|Zoho|zoho corporation;zohocorp|zoho.com|
stylemix|Stylemix|stylemixthemes;stylemix themes|stylemixthemes.com|
posimyth|POSIMYTH|posimyththemes;posimyth innovations|posimyth.com|
themify|Themify|themifyme;themify.me|themify.me|
yith|YITH|yithemes|yithemes.com|
langchain|LangChain|langchain-ai;langchainai|langchain.com|
openclinic-ga|OpenClinic GA|openclinicga;openclinic ga project;openclinicgaproject||
cs-technologies|CS Technologies|cs technologies australia;cs_technologies;cstechnologies||
`;

/**
 * Company forms added after slugs were published, so a former slug may end with one
 * (formerSlugTarget): Societas Europaea ("SAP SE", "SAP_SE" as the CNA spells it, "Viessmann Climate Solutions SE")
 * and the Indian "Pvt. Ltd." / "Private Limited" ("Projectworlds Pvt. Limited" beside `projectworlds`).
 */
const LATER_FORMS = ['se', 'pvt', 'private'];

const SUFFIXES = new Set([
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'ltd',
  'limited',
  'llc',
  'gmbh',
  'ag',
  'sa',
  'plc',
  'kg',
  'bv',
  'nv',
  'oy',
  'ab',
  'asa',
  'spa',
  'srl',
  'pty',
  'kk',
  'a/s',
  'as',
  'sas',
  'sarl',
  'international',
  ...LATER_FORMS,
]);

/** Lookup key of a vendor name: lowercase words without punctuation and trailing company-form words. */
export function vendorKey(name: string): string {
  const spaced = name
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .replace(/&/g, ' and ');
  // Stryker disable next-line Regex: the name is lower-cased and its runs of other characters split whole: one separator or a run gives the same words
  const words = spaced.split(/[^a-z0-9+]+/).filter(Boolean);
  // Company-form tails, including "GmbH & Co. KG".
  while (words.length > 1 && (SUFFIXES.has(words[words.length - 1]) || words[words.length - 1] === 'and')) words.pop();
  return words.join('');
}

const ENTRIES: VendorEntry[] = [];
const BY_KEY = new Map<string, VendorEntry>();
for (const line of TABLE.trim().split('\n')) {
  const [slug, name, aliases, domains, ics] = line.split('|');
  const e: VendorEntry = {
    slug,
    name,
    // Stryker disable next-line ArrayDeclaration: every line of the vendor table lists aliases, so the empty fallback is never taken
    aliases: aliases ? aliases.split(';') : [],
    domains: domains ? domains.split(';') : [],
    ics: ics === 'ics',
  };
  ENTRIES.push(e);
  // Stryker disable next-line ArrayDeclaration: every line of the vendor table lists aliases, so the empty fallback is never taken
  for (const a of [name, slug, ...(aliases ? aliases.split(';') : [])]) {
    const k = vendorKey(a);
    if (k && !BY_KEY.has(k)) BY_KEY.set(k, e);
  }
}

export const VENDOR_ALIASES: readonly VendorEntry[] = ENTRIES;

const BY_SLUG = new Map(ENTRIES.map((e) => [e.slug, e]));

/**
 * The spellings of a table vendor (its name and aliases of at least three characters), for reading its name and its
 * brands off the front of a product name ("Allen-Bradley Stratix 5400" of Rockwell Automation); empty outside the
 * table.
 */
export function vendorSpellings(slug: string): readonly string[] {
  const e = BY_SLUG.get(slug);
  return e ? [e.name, ...e.aliases.filter((a) => a.length >= 3)] : [];
}

/** Is this the slug of a vendor of the alias table (as opposed to one derived from a name outside it)? */
export function isTableSlug(slug: string): boolean {
  return BY_SLUG.has(slug);
}

export interface CanonicalVendor {
  slug: string;
  name: string;
  ics: boolean;
  domains: string[];
  /** True when the vendor came from the alias table. */
  known: boolean;
}

function titleFromToken(token: string): string {
  return (
    token
      // Stryker disable next-line Regex: the token's runs of separators split whole: one separator or a run gives the same words
      .split(/[_\s]+/)
      .filter(Boolean)
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join(' ')
  );
}

/**
 * Canonical vendor of a name as a source states it. `fromCpe` marks a CPE token (lowercase, `_` for
 * spaces), whose display name is title-cased when the vendor is not in the table.
 */
const memo = memoTable<string, CanonicalVendor | null>(100_000);

export function canonicalVendor(raw: string, fromCpe = false): CanonicalVendor | null {
  // Memoised: a corpus names a few thousand vendors hundreds of thousands of times.
  const k = `${fromCpe ? 1 : 0}${raw}`;
  let v = memo.get(k);
  // Stryker disable next-line ConditionalExpression: a memo: resolving again gives the same vendor
  if (v === undefined) {
    v = resolveVendor(raw, fromCpe);
    memo.set(k, v);
  }
  return v;
}

function resolveVendor(raw: string, fromCpe: boolean): CanonicalVendor | null {
  let name = raw.trim();
  // "n/a", "multiple", "multiple open source", "multiple trailer and brake manufacturers" (CSAF) name no vendor;
  // nor do '', '*' and '-' (no key, below).
  if (/^n\/?a$/i.test(name) || /^multiple\b/i.test(name)) return null;
  // "Sensormatic Electronics, LLC, a subsidiary of Johnson Controls Inc." → the parent company.
  const parent = /,\s*(?:a|an)\s+(?:subsidiary|affiliate)\s+of\s+(.+)$/i.exec(name)?.[1];
  if (parent) name = parent.replace(/[\s-]+$/, '');
  const key = vendorKey(name);
  if (!key) return null;
  let e = BY_KEY.get(key);
  if (!e && /,|\band\b/i.test(name)) {
    // "Exacq Technologies, Johnson Controls Inc." / "ICONICS, Mitsubishi Electric": parts that are
    // company-form words only are dropped; a single remaining part or a known part decides.
    // Stryker disable MethodExpression,Regex: the parts are trimmed and empty ones dropped, so a single whitespace or a run splits alike
    const parts = name
      .split(/,\s*(?:and\s+)?|\s+and\s+/i)
      .map((p) => p.trim())
      .filter((p) => p && !SUFFIXES.has(vendorKey(p)));
    // Stryker restore MethodExpression,Regex
    e = parts.map((p) => BY_KEY.get(vendorKey(p))).find(Boolean);
    if (!e && parts.length === 1) return resolveVendor(parts[0], fromCpe);
  }
  if (e) return { slug: e.slug, name: e.name, ics: e.ics, domains: e.domains, known: true };
  // Slugs keep to [a-z0-9-] (the vendors table constraint): '+' only helps matching.
  const slug = key.replace(/[^a-z0-9]/g, '');
  if (!slug) return null;
  return {
    slug,
    name: fromCpe ? titleFromToken(name) : name.replace(/\s+/g, ' '),
    ics: false,
    domains: [],
    known: false,
  };
}

/**
 * The slug a vendor slug that is no longer in the catalog may now be, or null; the caller checks that its catalog
 * holds it. Slugs are stable except when the alias table or the normalisation learns a spelling: `sapse` (from
 * "SAP_SE") became `sap` when "SE" became a company form and SAP a table vendor. The candidate comes from the rules
 * that move a slug:
 * - the slug read as a spelling, when it resolves to another vendor (the table lists the former slugs that none of
 *   its spellings normalises to, such as `sapse` and `dassaultsystmes`); where the table knows the slug, it decides;
 * - otherwise the slug without a trailing company form added since (LATER_FORMS: `viessmannclimatesolutionsse` →
 *   `viessmannclimatesolutions`, `projectworldspvt` → `projectworlds`).
 * Used to carry watch entries over a catalog rebuild and to redirect former slugs (docs/watchlists.md "Renamed
 * vendors"). Pure.
 */
export function formerSlugTarget(slug: string): string | null {
  const c = canonicalVendor(slug)?.slug;
  if (c && c !== slug) return c;
  const form = LATER_FORMS.find((f) => slug.length > f.length + 1 && slug.endsWith(f));
  return form ? slug.slice(0, -form.length) : null;
}

/** The table vendor that publishes on a registrable domain (e.g. a CNA e-mail domain). */
export function vendorByDomain(domain: string): VendorEntry | undefined {
  return ENTRIES.find((e) => e.domains.includes(domain));
}

/** A product name as displayed: CPE tokens become words ("simatic_s7-1500_firmware" → "simatic s7-1500 firmware"). */
export function productDisplay(raw: string, fromCpe = false): string {
  const p = raw.trim().replace(/\s+/g, ' ');
  return fromCpe ? p.replace(/_/g, ' ') : p;
}
