// Classification layer and category (src/domain/ics.ts; docs/enrichment.md "Classification").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  anchorScan,
  classifyCategory,
  classifyLayer,
  icsRelevance,
  PROTOCOL_PATTERNS,
  DEVICE_TYPES,
  KEYWORD_CATEGORIES,
  PROTOCOL_ANCHORS,
  DEVICE_ANCHORS,
  KEYWORD_ANCHORS,
} from '../../src/domain/ics.ts';
import * as oracle from '../helpers/ics-oracle.ts';

const layerOf = (text: string, advisory = false, icsVendor = false) =>
  classifyLayer(icsRelevance({ text, has_cisa_ics_advisory: advisory, ics_vendor: icsVendor }));

test('layer: OT when ICS-relevant, NETWORK for network devices, otherwise OS', () => {
  assert.equal(
    layerOf('A command injection in the GlobalProtect feature of Palo Alto Networks PAN-OS firewall software'),
    'NETWORK',
  );
  assert.equal(layerOf('Cisco IOS XE router web UI privilege escalation'), 'NETWORK');
  assert.equal(layerOf('Windows Kernel Elevation of Privilege Vulnerability'), 'OS');
  assert.equal(layerOf('Siemens SIMATIC S7-1500 CPU denial of service', true, true), 'OT');
  assert.equal(layerOf('A firewall bypass in a Siemens RUGGEDCOM device', true, true), 'OT');
});

test('category: the first CWE with a category, else the first matching keyword, else "other"', () => {
  assert.equal(classifyCategory([787, 89], 'SQL injection'), 'memory-corruption');
  assert.equal(classifyCategory([1, 89], 'buffer overflow'), 'sql-injection');
  assert.equal(classifyCategory([9999], 'An SQL injection in the login form'), 'sql-injection');
  assert.equal(classifyCategory([], 'A crafted packet causes a denial-of-service condition'), 'denial-of-service');
  assert.equal(classifyCategory([], 'Windows Kernel Elevation of Privilege Vulnerability'), 'access-control');
  assert.equal(classifyCategory([], 'An unspecified issue'), 'other');
});

// The literal prefilter (PROTOCOL_ANCHORS, DEVICE_ANCHORS, KEYWORD_ANCHORS) must give exactly the results of the
// regex-only implementation (test/helpers/ics-oracle.ts, a verbatim copy of it) for every input string.

/** One hand-written match per top-level alternative of each pattern, in order, in mixed case. */
const EXAMPLES: Record<string, string[]> = {
  // protocols
  modbus: ['MODBUS tcp'],
  dnp3: ['Dnp 3'],
  'opc-ua': ['OPC-UA', 'opc Unified Architecture'],
  'iec-61850': ['IEC 61850', 'GOOSE messages'],
  profinet: ['ProfiNet'],
  'ethernet-ip': ['EtherNet/IP', 'ethernet-IP', 'Common Industrial Protocol', 'CIP Messages'],
  bacnet: ['BACnet/IP'],
  ssh: ['SSH', 'OpenSSH 9', 'Secure Shell'],
  http: ['HTTPS', 'Web Interface', 'Web-Based'],
  ftp: ['SFTP', 'File Transfer Protocol'],
  // device types
  plc: [
    'PLCs',
    'Programmable Logic Controller',
    'SIMATIC S7',
    'S7-1500',
    'Modicon',
    'ControlLogix',
    'CompactLogix',
    'MicroLogix',
    'GuardLogix',
    'MELSEC',
    'iQ-R',
    'Sysmac',
    'CODESYS',
    'SIMATIC CP',
    'Communications Processor',
  ],
  rtu: ['RTUs', 'Remote Terminal Unit', 'SICAM', 'CP-8050'],
  hmi: ['HMI', 'Human-Machine Interface', 'Operator Panel', 'WinCC', 'FactoryTalk View', 'Vijeo', 'GOT2000'],
  scada: ['SCADA', 'Supervisory Control'],
  dcs: ['DCS', 'Distributed Control System', 'Symphony Plus', 'DeltaV', 'Experion', 'CENTUM', '800xA'],
  ied: ['IEDs', 'Intelligent Electronic Device', 'Protection Relay', 'Relion', 'SIPROTEC', 'MiCOM'],
  historian: ['Historian', 'PI Server', 'PI System'],
  'engineering-workstation': [
    'Engineering Workstation',
    'Studio 5000',
    'TIA Portal',
    'STEP 7',
    'GX Works',
    'System Platform',
  ],
  'safety-controller': ['Safety Instrumented', 'Safety Controller', 'Triconex'],
  drive: ['Variable Frequency Drive', 'VFDs', 'Servo Drive', 'PowerFlex', 'SINAMICS'],
  'industrial-gateway': ['Protocol Gateway', 'Industrial Ethernet', 'Fieldbus'],
  'building-automation': ['Building Automation', 'BMS', 'HVAC', 'Metasys', 'Niagara', 'KNX', 'U.motion'],
  'medical-device': ['Infusion Pump', 'Patient Monitor', 'Medical Device', 'Ventilator'],
  router: ['Routers'],
  switch: ['Network Switches', 'Ethernet Switch', 'Managed Switches'],
  firewall: ['Firewalls'],
  vpn: ['VPN'],
  camera: ['IP Cameras', 'NVR', 'Video Management'],
  ups: ['UPS', 'Uninterruptible Power'],
  // keyword categories
  'memory-corruption': [
    'Buffer Overflow',
    'Out-of-Bounds',
    'Use After-Free',
    'Heap Overflow',
    'Stack Overflow',
    'Memory Corruption',
  ],
  'command-injection': ['Command Injection', 'Code Injection', 'Remote Code Execution', 'Execute Arbitrary Commands'],
  'sql-injection': ['SQL Injection'],
  'cross-site-scripting': ['Cross-Site Scripting', 'XSS'],
  'path-traversal': ['Path Traversal', 'Directory Traversal'],
  authentication: ['Authentication Bypass', 'Hard-coded Password', 'Missing Authentication', 'Improper Authentication'],
  'access-control': [
    'Privilege Escalation',
    'Elevation of Privilege',
    'Improper Access Control',
    'Incorrect Default Permissions',
  ],
  'information-disclosure': ['Information Disclosure', 'Sensitive Information', 'Cleartext'],
  'denial-of-service': ['Denial of Service', 'DoS', 'Crash'],
  spoofing: ['Spoofing'],
  'security-feature-bypass': ['Security Feature Bypass'],
};

/** More matches, for the alternatives with optional or varying parts (a wrong anchor may hold for the first example only). */
const VARIANTS: Record<string, string[]> = {
  dnp3: ['DNP3', 'dnp\t3', 'dnp\u00a03'],
  'opc-ua': ['OPCUA', 'opc ua', 'opc\nUA'],
  'iec-61850': ['IEC61850', 'iec-61850', 'iec\u200961850', 'goose message'],
  'ethernet-ip': ['CIP packet', 'cip Requests', 'cip protocol'],
  http: ['http', 'web server', 'web application', 'web service', 'web portal', 'web UI', 'web management'],
  ftp: ['ftp', 'sftp'],
  plc: ['plc', 's7-300', 'S7-1200', 'iq-f', 'communication processor'],
  rtu: ['rtu', 'cp-8000', 'CP-8099'],
  hmi: ['hmis', 'human machine interface', 'human\tmachine interface', 'GOT1000', 'got123'],
  ied: ['ied'],
  'engineering-workstation': ['engineering software', 'engineering tool'],
  drive: ['vfd'],
  'industrial-gateway': ['industrial gateway', 'industrial router', 'industrial switch'],
  'building-automation': ['building management'],
  switch: ['network switch', 'ethernet switches', 'managed switch'],
  camera: ['camera', 'network cameras', 'video camera'],
  router: ['router'],
  firewall: ['firewall'],
  'memory-corruption': ['use-after-free', 'use after free', 'use-after free'],
  'command-injection': ['execute arbitrary code'],
  'cross-site-scripting': ['cross site scripting'],
  authentication: ['hard-coded credential'],
  'access-control': ['incorrect permissions'],
  'denial-of-service': ['denial-of-service', 'denial of-service'],
};

/** Every pattern with its name and its anchors (undefined when the table has no entry). */
const ALL_PATTERNS: {
  kind: 'protocol' | 'device' | 'keyword';
  name: string;
  re: RegExp;
  anchors: readonly string[] | undefined;
}[] = [
  ...PROTOCOL_PATTERNS.map(([name, re]) => ({
    kind: 'protocol' as const,
    name,
    re,
    anchors: PROTOCOL_ANCHORS.get(name),
  })),
  ...DEVICE_TYPES.map(([name, , re]) => ({ kind: 'device' as const, name, re, anchors: DEVICE_ANCHORS.get(name) })),
  ...KEYWORD_CATEGORIES.map(([name, re]) => ({
    kind: 'keyword' as const,
    name,
    re,
    anchors: KEYWORD_ANCHORS.get(name),
  })),
];

/** The top-level alternatives of a regex source (a '|' outside groups and classes, not escaped). */
function topLevelAlternatives(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  out.push(source.slice(start));
  return out;
}

test('anchors: every pattern has a non-empty list of lowercase printable-ASCII anchors, and no table has a stale entry', () => {
  assert.equal(ALL_PATTERNS.length, 10 + 19 + 11);
  for (const { name, re, anchors } of ALL_PATTERNS) {
    assert.ok(anchors !== undefined && anchors.length > 0, `no anchors for ${name}`);
    assert.equal(re.flags, 'i', name); // the exactness argument holds for non-unicode /i, without g or y
    for (const a of anchors)
      assert.match(a, /^[\x20-\x40\x5b-\x7e]+$/, `${name}: anchor ${JSON.stringify(a)} is not lowercase ASCII`);
  }
  assert.deepEqual(
    [...PROTOCOL_ANCHORS.keys()],
    PROTOCOL_PATTERNS.map(([n]) => n),
  );
  assert.deepEqual(
    [...DEVICE_ANCHORS.keys()],
    DEVICE_TYPES.map(([n]) => n),
  );
  assert.deepEqual(
    [...KEYWORD_ANCHORS.keys()],
    KEYWORD_CATEGORIES.map(([n]) => n),
  );
});

test('anchors: one hand-written match per alternative of every pattern contains one of its anchors, and is found', () => {
  assert.deepEqual(Object.keys(EXAMPLES).sort(), ALL_PATTERNS.map((p) => p.name).sort());
  for (const { kind, name, re, anchors } of ALL_PATTERNS) {
    const alts = topLevelAlternatives(re.source);
    const examples = EXAMPLES[name];
    assert.equal(examples.length, alts.length, `${name}: ${alts.length} alternatives, ${examples.length} examples`);
    alts.forEach((alt, i) => {
      const ex = examples[i];
      assert.ok(
        new RegExp(alt, 'i').test(ex),
        `${name}: example ${JSON.stringify(ex)} does not match alternative /${alt}/`,
      );
      assert.ok(
        anchors!.some((a) => ex.toLowerCase().includes(a)),
        `${name}: no anchor in ${JSON.stringify(ex)}`,
      );
      // Found by the prefiltered implementation, in a sentence, and exactly as the regex-only one finds it.
      const text = `The ${ex} of the product.`;
      const r = icsRelevance({ text, has_cisa_ics_advisory: false, ics_vendor: false });
      if (kind === 'protocol') assert.ok((r.protocols as string[]).includes(name), `${name}: ${text}`);
      if (kind === 'device') assert.ok(r.device_types.includes(name), `${name}: ${text}`);
      if (kind === 'keyword') assert.equal(classifyCategory([], `${ex}\n`), oracle.classifyCategory([], `${ex}\n`));
      assert.deepEqual(r, oracle.icsRelevance({ text, has_cisa_ics_advisory: false, ics_vendor: false }));
    });
  }
  for (const [name, vs] of Object.entries(VARIANTS)) {
    const { re, anchors } = ALL_PATTERNS.find((p) => p.name === name)!;
    for (const v of vs) {
      assert.ok(re.test(v), `${name}: variant ${JSON.stringify(v)} does not match`);
      assert.ok(
        anchors!.some((a) => v.toLowerCase().includes(a)),
        `${name}: no anchor in ${JSON.stringify(v)}`,
      );
    }
  }
  // The keyword categories are ordered: the first matching one wins.
  assert.equal(classifyCategory([], 'Use After-Free'), 'memory-corruption');
  assert.equal(classifyCategory([], 'a CRASH'), 'denial-of-service');
  assert.equal(classifyCategory([], 'XSS leads to SQL injection'), 'sql-injection');
});

test('anchorScan: finds every list with an anchor in the text, also anchors that overlap, repeat or prefix another', () => {
  const [ab, abc, bcd, cd, x, dot] = [['ab'], ['zz', 'abc'], ['bcd'], ['cd'], ['x'], ['a.c', 'a-b']];
  const scan = anchorScan([ab, abc, bcd, cd, x, dot]);
  const names = (lower: string) => {
    const f = scan(lower);
    return Object.entries({ ab, abc, bcd, cd, x, dot })
      .filter(([, l]) => f.has(l))
      .map(([n]) => n);
  };
  assert.deepEqual(names('abcd'), ['ab', 'abc', 'bcd', 'cd']); // "abc" hides "ab" at 0; "bcd" overlaps it
  assert.deepEqual(names('xab ab'), ['ab', 'x']);
  assert.deepEqual(names('abxcd'), ['ab', 'cd', 'x']);
  assert.deepEqual(names('a.c'), ['dot']); // regex metacharacters are literal
  assert.deepEqual(names('zz'), ['abc']);
  assert.deepEqual(names('a-b azc'), ['dot']);
  assert.deepEqual(names(''), []);
  assert.deepEqual(names('ABCD'), []); // the caller lowercases
  // Calls do not share state (the scan's regex is global).
  assert.deepEqual(names('cd'), ['cd']);
  assert.equal(anchorScan([])('anything').size, 0);
});

test('anchors: case folding that is not ASCII neither finds nor loses a match', () => {
  const r = (text: string) => icsRelevance({ text, has_cisa_ics_advisory: false, ics_vendor: false });
  // U+212A KELVIN SIGN lowercases to "k" (a candidate for "knx"), but /i without u does not fold it to K.
  assert.deepEqual(r('\u212ANX bus').device_types, []);
  assert.deepEqual(r('KNX bus').device_types, ['building-automation']);
  // U+017F LONG S uppercases to "S", yet does not match s under /i without u.
  assert.deepEqual(r('\u017Fsh').protocols, []);
  // U+0130 lowercases to "i" + U+0307: "İed" lowers to "i̇ed", with "ied" split; the regex still decides.
  assert.deepEqual(r('\u0130ED').device_types, []);
  assert.deepEqual(r('an IED.').device_types, ['ied']);
  // \s in "dnp\s?3" matches a no-break space; the anchor "dnp" does not span it.
  assert.deepEqual(r('DNP\u00a03').protocols, ['dnp3']);
  assert.equal(classifyCategory([], 'cra\u017Fh'), 'other');
  assert.equal(classifyCategory([], 'CRASH'), 'denial-of-service');
});

test('property: the prefiltered icsRelevance and classifyCategory equal the regex-only ones on any text', () => {
  const words = new Set<string>();
  for (const { anchors } of ALL_PATTERNS) for (const a of anchors ?? []) words.add(a);
  for (const exs of [...Object.values(EXAMPLES), ...Object.values(VARIANTS)])
    for (const ex of exs) {
      words.add(ex);
      for (const w of ex.split(/[\s/-]+/)) if (w) words.add(w);
    }
  for (const d of ['3', '7', '80', '123', '1500', '8050', '2000', '5000', '12345', 'es', 's', 'xa', 'r', 'f'])
    words.add(d);
  const fragments = [...words];
  const randomCase = (s: string) =>
    fc
      .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
      .map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
  const part = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fragments).chain(randomCase) },
    { weight: 4, arbitrary: fc.constantFrom(' ', '-', '/', '\n', '', '.', '\t', '\u00a0', '_') },
    { weight: 2, arbitrary: fc.constantFrom('a', 'Z', '0', '9', 'x') },
    { weight: 2, arbitrary: fc.nat(99_999).map(String) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '\u0130',
        '\u0131',
        '\u212A',
        '\u212B',
        '\u017F',
        '\u0301',
        '\u0307',
        '\u00e9',
        '\u00df',
        '\ufb00',
        '\u2028',
        '\u03a3',
        '\ud83d\ude00',
        '\ud800',
        'K\u0301',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  );
  const text = fc.array(part, { maxLength: 24 }).map((ps) => ps.join(''));
  const cwes = fc.constantFrom<number[]>([], [1], [9999, 89], [787]);
  fc.assert(
    fc.property(text, fc.boolean(), fc.boolean(), (t, adv, vendor) => {
      const input = { text: t, has_cisa_ics_advisory: adv, ics_vendor: vendor };
      assert.deepEqual(icsRelevance(input), oracle.icsRelevance(input));
      assert.equal(classifyCategory([], t), oracle.classifyCategory([], t));
    }),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(text, cwes, (t, c) => {
      assert.equal(classifyCategory(c, t), oracle.classifyCategory(c, t));
    }),
    { numRuns: 500 },
  );
});
