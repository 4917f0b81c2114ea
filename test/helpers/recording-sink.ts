// A FeedSink for sync tests: reads each handed-over file with the real readers (src/ingest/) and records what
// came out, so tests assert on the records the pipeline would receive.
import { readFeed } from '../../src/ingest/detect.ts';
import type { FeedFormat, IngestItem } from '../../src/ingest/types.ts';
import type { FeedFile, FeedItems, FeedSink } from '../../src/services/sync/sync.ts';

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

  /** Throws the failure set for `source` by failNext, once. */
  private throwIfFailing(source: string): void {
    const f = this.failures.findIndex((x) => x.source === source);
    if (f >= 0) throw new Error(this.failures.splice(f, 1)[0].error);
  }

  /** Pipeline runs (calls), each with the files it was given. */
  readonly calls: { source: string; files: string[] }[] = [];

  async importFiles(files: readonly FeedFile[], info: { source: string }): Promise<{ records: number }> {
    this.throwIfFailing(info.source);
    // Like the pipeline: every file is read before anything counts, so an unreadable file fails the whole call.
    const done: SinkImport[] = [];
    for (const { file, format } of files) done.push(await this.readOne(file, format, info.source));
    this.imports.push(...done);
    this.calls.push({ source: info.source, files: files.map((x) => x.file) });
    return { records: done.reduce((n, d) => n + d.records, 0) };
  }

  /** Items a source read itself: recorded as one import of its format. */
  async importItems(input: FeedItems, info: { source: string }): Promise<{ records: number }> {
    this.throwIfFailing(info.source);
    const done = await this.record(input.items(), input.format, info.source);
    this.imports.push(done);
    this.calls.push({ source: info.source, files: [input.label] });
    return { records: done.records };
  }

  private readOne(file: string, format: FeedFormat, source: string): Promise<SinkImport> {
    return this.record(readFeed(file, format), format, source);
  }

  private async record(
    items: AsyncIterable<IngestItem> | Iterable<IngestItem>,
    format: FeedFormat,
    source: string,
  ): Promise<SinkImport> {
    const ids: string[] = [];
    const meta: IngestItem[] = [];
    for await (const item of items) {
      if (item.kind === 'meta') meta.push(item);
      else if (item.kind === 'cve' || item.kind === 'epss') ids.push(item.record.cve_id);
      else if (item.kind === 'cwe') ids.push(`CWE-${item.record.id}`);
      else if (item.kind === 'capec') ids.push(`CAPEC-${item.record.capec_id}`);
    }
    return { source, format, records: ids.length, ids, meta };
  }

  of(source: string): SinkImport[] {
    return this.imports.filter((i) => i.source === source);
  }

  ids(source: string): string[] {
    return this.of(source).flatMap((i) => i.ids);
  }
}
