// MSRC CVRF documents in the XML form (shared/docs/windows-engine.md §1.2–1.4), read by one streaming scan.
import { scanXml, type XmlHandler } from './xml-scan.ts';
import { collectAdvisoryUrls, emptyVuln, msrcDateToIso, num } from './msrc-text.ts';
import type {
  MsrcDocument,
  MsrcRemediation,
  MsrcRevision,
  MsrcScoreSet,
  MsrcThreat,
  MsrcVulnerability,
} from '../domain/windows/msrc-types.ts';

/**
 * Parse one CVRF XML document. `skipVulnerability` lets a caller drop entries early (e.g. by CVE)
 * without building them; by default everything is kept.
 */
export function parseCvrfXml(xml: string): MsrcDocument {
  const doc: MsrcDocument = {
    id: '',
    title: '',
    initialReleaseDate: null,
    currentReleaseDate: null,
    revisionNumber: null,
    products: new Map(),
    vulnerabilities: [],
    advisoryUrls: new Map(),
    families: new Map(),
  };
  const families = doc.families!;
  const stack: string[] = [];
  /** Open ProductTree branches: the family name for a Product Family branch, null for others. */
  const branches: (string | null)[] = [];
  let buf = '';
  let vuln: MsrcVulnerability | null = null;
  let rem: MsrcRemediation | null = null;
  let threat: MsrcThreat | null = null;
  let score: MsrcScoreSet | null = null;
  let rev: MsrcRevision | null = null;
  let statusType: string | null = null;
  let noteAttrs: Record<string, string> | null = null;
  let productId: string | null = null;
  let cweId: string | null = null;
  let docRevisionSeen = false;
  const vulnNoteUrls = new Map<string, string>();

  const h: XmlHandler = {
    wantAttrs(name) {
      return (
        name === 'FullProductName' ||
        name === 'Branch' ||
        name === 'Remediation' ||
        name === 'Threat' ||
        name === 'Status' ||
        name === 'Note' ||
        name === 'CWE'
      );
    },
    open(name, attrs) {
      stack.push(name);
      buf = '';
      switch (name) {
        case 'Vulnerability':
          vuln = emptyVuln();
          break;
        case 'Remediation':
          if (vuln) {
            rem = {
              type: attrs?.Type ?? '',
              description: null,
              url: null,
              supercedence: null,
              productIds: [],
              subType: null,
              fixedBuild: null,
              restartRequired: null,
            };
          }
          break;
        case 'Threat':
          if (vuln) threat = { type: attrs?.Type ?? '', description: '', productIds: [] };
          break;
        case 'ScoreSet':
          if (vuln) score = { baseScore: null, temporalScore: null, vector: null, productIds: [] };
          break;
        case 'Revision':
          rev = { number: '', date: '', description: '' };
          break;
        case 'Status':
          statusType = attrs?.Type ?? '';
          break;
        case 'Note':
          noteAttrs = attrs ?? {};
          break;
        case 'FullProductName':
          productId = attrs?.ProductID ?? null;
          break;
        case 'Branch':
          branches.push(attrs?.Type === 'Product Family' ? (attrs.Name ?? '').trim() || null : null);
          break;
        case 'CWE':
          cweId = attrs?.ID ?? '';
          break;
        default:
          break;
      }
    },
    text(value) {
      buf += value;
    },
    close(name) {
      stack.pop();
      const parent = stack[stack.length - 1];
      const t = buf;
      buf = '';
      if (vuln) {
        switch (name) {
          case 'Vulnerability':
            doc.vulnerabilities.push(vuln);
            for (const [cve, url] of vulnNoteUrls) if (!doc.advisoryUrls.has(cve)) doc.advisoryUrls.set(cve, url);
            vulnNoteUrls.clear();
            vuln = null;
            return;
          case 'Title':
            if (parent === 'Vulnerability') vuln.title = t.trim();
            return;
          case 'CVE':
            vuln.cve = t.trim();
            return;
          case 'CWE':
            vuln.cwes.push({ id: (cweId ?? '').trim(), name: t.trim() });
            cweId = null;
            return;
          case 'Note':
            if (parent === 'Notes') {
              vuln.notes.push({ type: noteAttrs?.Type ?? '', title: noteAttrs?.Title ?? '', text: t });
              if (vuln.cve) collectAdvisoryUrls(t, vulnNoteUrls, vuln.cve);
            }
            noteAttrs = null;
            return;
          case 'Status':
            statusType = null;
            return;
          case 'ProductID': {
            const pid = t.trim();
            if (rem) rem.productIds.push(pid);
            else if (threat) threat.productIds.push(pid);
            else if (score) score.productIds.push(pid);
            else if (statusType === 'Known Affected') vuln.knownAffected.push(pid);
            return;
          }
          case 'Threat':
            if (threat) vuln.threats.push(threat);
            threat = null;
            return;
          case 'ScoreSet':
            if (score) vuln.scoreSets.push(score);
            score = null;
            return;
          case 'BaseScore':
            if (score) score.baseScore = num(t);
            return;
          case 'TemporalScore':
            if (score) score.temporalScore = num(t);
            return;
          case 'Vector':
            if (score) score.vector = t.trim() || null;
            return;
          case 'Remediation':
            if (rem) vuln.remediations.push(rem);
            rem = null;
            return;
          case 'Description':
            if (rem) rem.description = t.trim() || null;
            else if (threat) threat.description = t.trim();
            else if (rev) rev.description = t;
            return;
          case 'URL':
            if (rem) rem.url = t.trim() || null;
            return;
          case 'Supercedence':
            if (rem) rem.supercedence = t.trim() || null;
            return;
          case 'SubType':
            if (rem) rem.subType = t.trim() || null;
            return;
          case 'FixedBuild':
            if (rem) rem.fixedBuild = t || null;
            return;
          case 'RestartRequired':
            if (rem) rem.restartRequired = t.trim() || null;
            return;
          case 'Number':
            if (rev) rev.number = t.trim();
            return;
          case 'Date':
            if (rev) rev.date = t.trim();
            return;
          case 'Revision':
            if (rev) vuln.revisions.push(rev);
            rev = null;
            return;
          default:
            return;
        }
      }
      switch (name) {
        case 'DocumentTitle':
          doc.title = t.trim();
          return;
        case 'ID':
          if (parent === 'Identification') doc.id = t.trim();
          return;
        case 'InitialReleaseDate':
          if (parent === 'DocumentTracking') doc.initialReleaseDate = msrcDateToIso(t);
          return;
        case 'CurrentReleaseDate':
          if (parent === 'DocumentTracking') doc.currentReleaseDate = msrcDateToIso(t);
          return;
        case 'Number':
          if (rev && !docRevisionSeen) doc.revisionNumber = t.trim();
          return;
        case 'Revision':
          docRevisionSeen = true;
          rev = null;
          return;
        case 'Note':
          collectAdvisoryUrls(t, doc.advisoryUrls);
          noteAttrs = null;
          return;
        case 'FullProductName':
          if (productId && !doc.products.has(productId)) {
            doc.products.set(productId, t.trim());
            const family = branches.findLast((b) => b !== null);
            if (family) families.set(productId, family);
          }
          productId = null;
          return;
        case 'Branch':
          branches.pop();
          return;
        default:
          return;
      }
    },
  };
  scanXml(xml, h);
  if (!doc.id) throw new Error('not an MSRC CVRF document: no DocumentTracking/Identification/ID');
  return doc;
}
