// The plant report as PDF (docs/reports.md, ADR 0101), with pdfkit as the CVE report (http/views/cve-pdf.ts): pure JavaScript
// on Node 20, its standard fonts built in, nothing to fetch or install. The same sections, in the same order, as the
// HTML page (http/web/report.tsx) and the email text (services/plant-reports.ts reportText).
import PDFDocument from 'pdfkit';
import { fixesOf, type PlantReport, type ReportCve } from './plant-reports.ts';
import { clean } from '../lib/pdf-text.ts';

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

export function renderReportPdf(r: PlantReport): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: 50,
      bufferPages: false,
      info: {
        Title: `Plant report: ${clean(r.environment.name)}`,
        Author: 'Vulnintel',
        Subject: `${r.period.from} to ${r.period.to}`,
        CreationDate: new Date(r.generated_at),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);

    const h = (t: string) =>
      doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).text(clean(t)).moveDown(0.2).font('Helvetica').fontSize(10);
    const kv = (k: string, v: string) =>
      doc.font('Helvetica-Bold').text(`${k}: `, { continued: true }).font('Helvetica').text(clean(v));
    const line = (t: string, indent = 0) => doc.text(clean(t), { indent });
    const cve = (c: ReportCve, fixes: boolean) => {
      doc
        .font('Helvetica-Bold')
        .text(`${c.cve_id}  ${c.priority}${c.known_exploited ? '  KEV' : ''}${c.severity ? `  ${c.severity}` : ''}`)
        .font('Helvetica');
      line(c.title, 12);
      if (fixes) for (const x of fixesOf(c)) line(x, 12);
    };

    const f = r.summary;
    doc
      .font('Helvetica-Bold')
      .fontSize(20)
      .text(clean(`Plant report: ${r.environment.name}`));
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('#555')
      .text(clean(`${r.organization} - period ${r.period.from} to ${r.period.to} - generated ${r.generated_at}`))
      .fillColor('#000');

    h('Exposure summary');
    kv(
      'Open CVEs',
      `${f.open_cves} (PATCH NOW ${f.by_priority['PATCH NOW']}, PATCH NEXT ${f.by_priority['PATCH NEXT']}, MONITOR ${f.by_priority.MONITOR}, IGNORE ${f.by_priority.IGNORE})`,
    );
    kv(
      'By severity',
      `critical ${f.by_severity.critical}, high ${f.by_severity.high}, medium ${f.by_severity.medium}, low ${f.by_severity.low}, none ${f.by_severity.none}`,
    );
    kv(
      'Known exploited (KEV), open',
      `${f.known_exploited}${f.kev_mean_age_days === null ? '' : `, mean age ${f.kev_mean_age_days} days`}`,
    );
    kv('Assets with an open CVE', `${f.assets_exposed} of ${r.environment.assets}`);
    kv('Windows hosts past end of life', String(f.windows_eol_hosts));
    kv(
      'Decisions',
      `under investigation ${f.decisions.under_investigation}, affected ${f.decisions.affected}, not affected ${f.decisions.not_affected}, fixed ${f.decisions.fixed}, to review again ${f.decisions.review_again}`,
    );

    h('Trend');
    if (r.trend.length < 2) line('Fewer than two daily snapshots in the period: no trend yet.');
    else {
      // Open CVEs per day as a line in a 495 x 100 box.
      const x0 = doc.page.margins.left;
      const y0 = doc.y + 4;
      const w = 495;
      const hgt = 100;
      const max = Math.max(1, ...r.trend.map((t) => t.open_cves));
      doc
        .save()
        .lineWidth(0.5)
        .strokeColor('#888')
        .moveTo(x0, y0)
        .lineTo(x0, y0 + hgt)
        .lineTo(x0 + w, y0 + hgt)
        .stroke();
      doc.lineWidth(1.5).strokeColor('#0b5cad');
      r.trend.forEach((t, i) => {
        const px = x0 + (i / (r.trend.length - 1)) * w;
        const py = y0 + hgt - (t.open_cves / max) * hgt;
        if (i === 0) doc.moveTo(px, py);
        else doc.lineTo(px, py);
      });
      doc.stroke().restore();
      doc.y = y0 + hgt + 4;
      doc
        .fontSize(8)
        .text(
          `${r.trend[0].day}: ${r.trend[0].open_cves} open   ...   ${r.trend[r.trend.length - 1].day}: ${r.trend[r.trend.length - 1].open_cves} open (at most ${max})`,
          x0,
        )
        .fontSize(10);
    }

    h(`What to patch first (${r.patch_first.length} of ${r.patch_first_total})`);
    if (!r.patch_first.length) line('Nothing at PATCH NOW or PATCH NEXT.');
    for (const c of r.patch_first) cve(c, true);

    h(`Known-exploited CVEs (${r.known_exploited.length})`);
    if (!r.known_exploited.length) line('None open.');
    for (const c of r.known_exploited) cve(c, false);

    h(`Decisions taken in the period (${r.decisions_taken.length} of ${r.decisions_total})`);
    if (!r.decisions_taken.length) line('None.');
    for (const d of r.decisions_taken) {
      doc
        .font('Helvetica-Bold')
        .text(
          clean(
            `${d.at.slice(0, 16).replace('T', ' ')}  ${d.cve_id}  ${d.action === 'clear' ? 'cleared' : (d.status ?? '')}${d.justification ? ` (${d.justification})` : ''}`,
          ),
        )
        .font('Helvetica');
      line(`by ${d.by}`, 12);
      if (d.impact_statement) line(`Impact: ${d.impact_statement}`, 12);
      if (d.action_statement) line(`Action: ${d.action_statement}`, 12);
      if (d.comment) line(`Comment: ${d.comment}`, 12);
    }

    h(`Windows hosts past end of life (${r.eol_hosts.length})`);
    if (!r.eol_hosts.length) line('None.');
    for (const x of r.eol_hosts) line(`${x.asset_id}: ${x.microsoft_product ?? 'product not identified'}`);

    h('What changed since the last report');
    if (!r.changes) line('No earlier report of this environment.');
    else {
      const c = r.changes;
      line(
        `Since the report of ${c.since.from} to ${c.since.to}: open CVEs ${signed(c.open_cves)}, KEV ${signed(c.known_exploited)}, exposed assets ${signed(c.assets_exposed)}, Windows hosts past end of life ${signed(c.windows_eol_hosts)}.`,
      );
      line(`Newly open: ${c.new_open.join(', ') || 'none'}`);
      line(`No longer open: ${c.no_longer_open.join(', ') || 'none'}`);
    }
    doc.end();
  });
}
