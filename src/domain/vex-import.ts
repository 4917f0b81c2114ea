// Reading a VEX document back (docs/vex.md "Import"): OpenVEX 0.2.0, CycloneDX (1.4 to 1.6) or CSAF 2.0 (the VEX
// profile) JSON into the statements a decision is made of, and the products each names. Our own exports name assets
// by their IRI (…/environments/{id}/assets/{asset_id}) and, in CycloneDX, the environment itself; other documents
// name products by CPE, or by name and version. The format is told here; each has its reader (vex-openvex.ts,
// vex-cyclonedx.ts, vex-csaf.ts) and the statements they read into are in vex-statements.ts. Pure.
import { obj, type ReadVex } from './vex-statements.ts';
import { openVex } from './vex-openvex.ts';
import { cycloneDx } from './vex-cyclonedx.ts';
import { csafVex } from './vex-csaf.ts';

/**
 * Whether a version is within a CycloneDX affects[].versions entry: equal to its version, or inside its
 * `vers:generic` range (constraints joined by |, each =, !=, <, <=, > or >=, all of which must hold).
 */
export function versionIn(
  v: string,
  entry: { version?: string; range?: string },
  compare: (a: string, b: string) => number | string,
): boolean {
  // A comparison the version rules cannot decide (a string answer) places nothing.
  if (entry.version) return compare(v, entry.version) === 0;
  const m = /^vers:[a-z]+\/(.+)$/i.exec(entry.range ?? '');
  if (!m) return false;
  return m[1].split('|').every((c) => {
    const x = /^(>=|<=|!=|<|>|=)?(.+)$/.exec(c.trim());
    if (!x) return false;
    if (x[2] === '*') return true;
    const r = compare(v, x[2]);
    if (typeof r !== 'number') return false;
    switch (x[1] ?? '=') {
      case '>=':
        return r >= 0;
      case '<=':
        return r <= 0;
      case '>':
        return r > 0;
      case '<':
        return r < 0;
      case '!=':
        return r !== 0;
      default:
        return r === 0;
    }
  });
}

/** The statements of an OpenVEX, CycloneDX or CSAF VEX JSON document; a field error when it is none of them. */
export function readVexDocument(doc: unknown): ReadVex {
  const d = obj(doc);
  const csaf = obj(d.document);
  if (csaf.csaf_version !== undefined) {
    if (csaf.csaf_version !== '2.0')
      return {
        ok: false,
        errors: [{ field: 'body.document.csaf_version', message: 'CSAF 2.0 is read', type: 'value_error.format' }],
      };
    if (csaf.category !== 'csaf_vex') {
      return {
        ok: false,
        errors: [
          {
            field: 'body.document.category',
            message: `a CSAF document of the VEX profile (category csaf_vex), not ${typeof csaf.category === 'string' ? csaf.category : 'none'}`,
            type: 'value_error.format',
          },
        ],
      };
    }
    if (!Array.isArray(d.vulnerabilities))
      return {
        ok: false,
        errors: [
          {
            field: 'body.vulnerabilities',
            message: 'a CSAF VEX document holds vulnerabilities',
            type: 'value_error.missing',
          },
        ],
      };
    return csafVex(d);
  }
  if (typeof d['@context'] === 'string' && d['@context'].startsWith('https://openvex.dev/ns')) {
    if (!Array.isArray(d.statements))
      return {
        ok: false,
        errors: [
          { field: 'body.statements', message: 'an OpenVEX document holds statements', type: 'value_error.missing' },
        ],
      };
    return openVex(d);
  }
  if (d.bomFormat === 'CycloneDX') {
    if (!Array.isArray(d.vulnerabilities))
      return {
        ok: false,
        errors: [
          {
            field: 'body.vulnerabilities',
            message: 'a CycloneDX VEX holds vulnerabilities',
            type: 'value_error.missing',
          },
        ],
      };
    return cycloneDx(d);
  }
  return {
    ok: false,
    errors: [
      {
        field: 'body',
        message:
          'not an OpenVEX document (@context https://openvex.dev/ns/…), a CycloneDX one (bomFormat CycloneDX) or a CSAF 2.0 one (document.csaf_version)',
        type: 'value_error.format',
      },
    ],
  };
}
