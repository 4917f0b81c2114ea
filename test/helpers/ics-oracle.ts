// The regex-only ICS relevance and category of src/domain/ics.ts as they stood before the literal prefilter
// (commit c286d59), copied verbatim: the oracle the faster implementation must equal on every input
// (test/unit/ics.test.ts, bench/ics-relevance.ts). Do not edit it to follow src/domain/ics.ts.
import type { IcsProtocol, Layer } from '../../src/domain/cve-document.ts';

/** Protocol keyword patterns; the names are the spec's list (§4.1). */
export const PROTOCOL_PATTERNS: [IcsProtocol, RegExp][] = [
  ['modbus', /\bmodbus\b/i],
  ['dnp3', /\bdnp\s?3\b/i],
  ['opc-ua', /\bopc[\s-]?ua\b|\bopc unified architecture\b/i],
  ['iec-61850', /\biec[\s-]?61850\b|\bgoose messag/i],
  ['profinet', /\bprofinet\b/i],
  [
    'ethernet-ip',
    /\bethernet\/ip\b|\bethernet-ip\b|\bcommon industrial protocol\b|\bcip (?:message|packet|request|protocol)s?\b/i,
  ],
  ['bacnet', /\bbacnet\b/i],
  ['ssh', /\bssh\b|\bopenssh\b|\bsecure shell\b/i],
  ['http', /\bhttps?\b|\bweb (?:server|interface|application|service|portal|ui|management)\b|\bweb-based\b/i],
  ['ftp', /\bs?ftp\b|\bfile transfer protocol\b/i],
];

/** Industrial protocols (raise ICS relevance); ssh/http/ftp are listed but do not raise it. */
export const INDUSTRIAL_PROTOCOLS: ReadonlySet<IcsProtocol> = new Set([
  'modbus',
  'dnp3',
  'opc-ua',
  'iec-61850',
  'profinet',
  'ethernet-ip',
  'bacnet',
]);

/** Device types: [name, ICS device?, pattern]. */
export const DEVICE_TYPES: [string, boolean, RegExp][] = [
  [
    'plc',
    true,
    /\bplcs?\b|programmable logic controller|\bsimatic s7\b|\bs7-\d{3,4}\b|\bmodicon\b|\bcontrollogix\b|\bcompactlogix\b|\bmicrologix\b|\bguardlogix\b|\bmelsec\b|\biq-[rf]\b|\bsysmac\b|\bcodesys\b|\bsimatic cp\b|\bcommunications? processor\b/i,
  ],
  ['rtu', true, /\brtus?\b|remote terminal unit|\bsicam\b|\bcp-80\d\d\b/i],
  [
    'hmi',
    true,
    /\bhmis?\b|human[\s-]machine interface|\boperator panel\b|\bwincc\b|\bfactorytalk view\b|\bvijeo\b|\bgot\d{3,4}\b/i,
  ],
  ['scada', true, /\bscada\b|\bsupervisory control\b/i],
  ['dcs', true, /\bdcs\b|distributed control system|\bsymphony plus\b|\bdeltav\b|\bexperion\b|\bcentum\b|\b800xa\b/i],
  ['ied', true, /\bieds?\b|intelligent electronic device|protection relay|\brelion\b|\bsiprotec\b|\bmicom\b/i],
  ['historian', true, /\bhistorian\b|\bpi server\b|\bpi system\b/i],
  [
    'engineering-workstation',
    true,
    /engineering (?:software|workstation|tool)|\bstudio 5000\b|\btia portal\b|\bstep 7\b|\bgx works\b|\bsystem platform\b/i,
  ],
  ['safety-controller', true, /safety instrumented|\bsafety controller\b|\btriconex\b/i],
  ['drive', true, /variable frequency drive|\bvfds?\b|\bservo drive\b|\bpowerflex\b|\bsinamics\b/i],
  ['industrial-gateway', true, /\bprotocol gateway\b|\bindustrial (?:gateway|router|switch|ethernet)\b|\bfieldbus\b/i],
  [
    'building-automation',
    true,
    /building (?:automation|management)|\bbms\b|\bhvac\b|\bmetasys\b|\bniagara\b|\bknx\b|\bu\.motion\b/i,
  ],
  ['medical-device', true, /\binfusion pump\b|\bpatient monitor\b|\bmedical device\b|\bventilator\b/i],
  ['router', false, /\brouters?\b/i],
  ['switch', false, /\bnetwork switch(?:es)?\b|\bethernet switch(?:es)?\b|\bmanaged switch(?:es)?\b/i],
  ['firewall', false, /\bfirewalls?\b/i],
  ['vpn', false, /\bvpn\b/i],
  ['camera', false, /\b(?:ip |network |video )?cameras?\b|\bnvr\b|\bvideo management\b/i],
  ['ups', false, /\bups\b|uninterruptible power/i],
];

/** Weights of the ICS relevance score (sum clamped to 1). */
export const ICS_WEIGHTS = {
  cisa_ics_advisory: 0.5,
  ics_vendor: 0.35,
  // An ICS device type and an industrial protocol together make a CVE relevant without an advisory or an
  // ICS vendor (KEV CVE-2017-12235: Cisco Industrial Ethernet switches, PROFINET); either alone does not.
  ics_device_type: 0.25,
  industrial_protocol: 0.25,
} as const;
export const ICS_RELEVANT_THRESHOLD = 0.5;

export interface IcsInput {
  text: string; // description, titles, product names
  has_cisa_ics_advisory: boolean;
  ics_vendor: boolean;
}

export interface IcsResult {
  score: number;
  relevant: boolean;
  protocols: IcsProtocol[];
  device_types: string[];
  /** Which weighted signals fired (for the analyst block and docs). */
  signals: (keyof typeof ICS_WEIGHTS)[];
}

export function icsRelevance(input: IcsInput): IcsResult {
  const protocols = PROTOCOL_PATTERNS.filter(([, re]) => re.test(input.text)).map(([p]) => p);
  const devices = DEVICE_TYPES.filter(([, , re]) => re.test(input.text));
  const signals: (keyof typeof ICS_WEIGHTS)[] = [];
  if (input.has_cisa_ics_advisory) signals.push('cisa_ics_advisory');
  if (input.ics_vendor) signals.push('ics_vendor');
  if (devices.some(([, ics]) => ics)) signals.push('ics_device_type');
  if (protocols.some((p) => INDUSTRIAL_PROTOCOLS.has(p))) signals.push('industrial_protocol');
  const raw = signals.reduce((s, k) => s + ICS_WEIGHTS[k], 0);
  const score = Math.round(Math.min(1, raw) * 100) / 100;
  return {
    score,
    relevant: score >= ICS_RELEVANT_THRESHOLD,
    protocols,
    device_types: devices.map(([d]) => d),
    signals,
  };
}

const NETWORK_DEVICES = new Set(['router', 'switch', 'firewall', 'vpn', 'industrial-gateway']);

/** Layer: OT when ICS-relevant; NETWORK for network infrastructure; otherwise OS (hosts and their software). */
export function classifyLayer(ics: IcsResult): Layer {
  if (ics.relevant) return 'OT';
  if (ics.device_types.some((d) => NETWORK_DEVICES.has(d))) return 'NETWORK';
  return 'OS';
}

/** Category by CWE (first match in the CVE's CWE order), then by description keywords. */
const CWE_CATEGORIES: [string, number[]][] = [
  [
    'memory-corruption',
    [
      119, 120, 121, 122, 123, 124, 125, 126, 127, 131, 190, 191, 401, 415, 416, 476, 680, 681, 786, 787, 788, 805, 822,
      823, 824, 825, 843,
    ],
  ],
  ['command-injection', [77, 78, 88, 94, 95, 96, 917, 1336]],
  ['sql-injection', [89, 564, 943]],
  ['cross-site-scripting', [79, 80, 83, 87]],
  ['path-traversal', [22, 23, 24, 35, 36, 59, 73]],
  ['authentication', [287, 288, 290, 294, 303, 306, 307, 521, 522, 523, 620, 640, 798, 259, 321, 1390, 1391, 1392]],
  ['access-control', [250, 264, 266, 269, 276, 280, 281, 282, 284, 285, 639, 648, 732, 862, 863, 425, 552]],
  ['information-disclosure', [200, 201, 203, 209, 212, 215, 312, 313, 316, 319, 359, 497, 532, 538, 548, 598]],
  ['cryptographic', [295, 296, 297, 310, 311, 320, 325, 326, 327, 328, 330, 331, 335, 338, 347, 757, 916]],
  ['deserialization', [502]],
  ['denial-of-service', [369, 400, 404, 674, 754, 755, 770, 772, 789, 834, 835, 1333, 617, 703]],
  ['csrf', [352]],
  ['ssrf', [918]],
  ['file-upload', [434]],
  ['xml-external-entity', [611, 776, 827]],
  ['input-validation', [20, 74, 116, 129, 1284, 1287]],
  ['race-condition', [362, 364, 366, 367]],
  ['configuration', [16, 1188, 453, 668, 1220]],
];

const KEYWORD_CATEGORIES: [string, RegExp][] = [
  [
    'memory-corruption',
    /buffer overflow|out-of-bounds|use[- ]after[- ]free|heap overflow|stack overflow|memory corruption/i,
  ],
  ['command-injection', /command injection|code injection|remote code execution|execute arbitrary (?:code|commands)/i],
  ['sql-injection', /sql injection/i],
  ['cross-site-scripting', /cross[- ]site scripting|\bxss\b/i],
  ['path-traversal', /path traversal|directory traversal/i],
  [
    'authentication',
    /authentication bypass|hard-coded (?:credential|password)|missing authentication|improper authentication/i,
  ],
  [
    'access-control',
    /privilege escalation|elevation of privilege|improper access control|incorrect (?:default )?permissions/i,
  ],
  ['information-disclosure', /information disclosure|sensitive information|cleartext/i],
  ['denial-of-service', /denial[- ]of[- ]service|\bdos\b|crash/i],
  ['spoofing', /spoofing/i],
  ['security-feature-bypass', /security feature bypass/i],
];

export function classifyCategory(cwes: number[], text: string): string {
  for (const id of cwes) {
    for (const [cat, ids] of CWE_CATEGORIES) if (ids.includes(id)) return cat;
  }
  for (const [cat, re] of KEYWORD_CATEGORIES) if (re.test(text)) return cat;
  return 'other';
}
