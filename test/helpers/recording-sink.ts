// A FeedSink for sync tests: reads each handed-over file with the real readers (src/ingest/) and records what
// came out, so tests assert on the records the pipeline would receive.
import { readFeed } from '../../src/ingest/detect.ts';
import type { FeedFormat, IngestItem } from '../../src/ingest/types.ts';
import type { FeedSink } from '../../src/jobs/sync.ts';

export interface SinkImport {
  source: string;
  format: FeedFormat;
  records: number;
  /** CVE ids (cve records) or catalog ids (cwe/capec) or EPSS ids, in file order. */
  ids: string[];
  meta: IngestItem[];
}

export class RecordingSink implements FeedSink {
  readonly imports: SinkImport[] = [];
  private failures: { source: string; error: string }[] = [];

  /** The next import for `source` throws (as a failed batch would). */
  failNext(source: string, error = 'simulated pipeline failure'): void {
    this.failures.push({ source, error });
  }

  async importFile(file: string, format: FeedFormat, info: { source: string }): Promise<{ records: number }> {
    const f = this.failures.findIndex((x) => x.source === info.source);
    if (f >= 0) {
      const [failure] = this.failures.splice(f, 1);
      throw new Error(failure.error);
    }
    const ids: string[] = [];
    const meta: IngestItem[] = [];
    for await (const item of readFeed(file, format)) {
      if (item.kind === 'meta') meta.push(item);
      else if (item.kind === 'cve' || item.kind === 'epss') ids.push(item.record.cve_id);
      else if (item.kind === 'cwe') ids.push(`CWE-${item.record.id}`);
      else if (item.kind === 'capec') ids.push(`CAPEC-${item.record.capec_id}`);
    }
    this.imports.push({ source: info.source, format, records: ids.length, ids, meta });
    return { records: ids.length };
  }

  of(source: string): SinkImport[] {
    return this.imports.filter((i) => i.source === source);
  }

  ids(source: string): string[] {
    return this.of(source).flatMap((i) => i.ids);
  }
}
