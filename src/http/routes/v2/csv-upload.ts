// The multipart CSV upload of POST /api/v2/assets/correlate-csv (spec §4.2; ADR 0088): its parts read and checked,
// and its CSV text read into rows (also the environment page's upload, http/routes/v1/web-pages.ts). Every malformed
// upload is a 422 that says what is wrong.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import { ApiError } from '../../errors.ts';
import { refuseHostileText } from '../../text-guard.ts';
import { SOFTWARE_FIELDS } from '../../../domain/windows/validate-software.ts';
import { asError } from '../../../lib/errors.ts';

/** A 422 on one field, in the spec's wording. */
export function fieldError(field: string, message: string, type = 'value_error') {
  return new ApiError('VALIDATION_ERROR', { message, fields: [{ field, message, type }] });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Errors while reading the parts. Nothing but the request body is read there, so every failure is the client's:
 * limits keep their meaning (a part over 16 MiB stays 413), anything else (no boundary, a truncated or malformed
 * body, a premature close) is a 422 that says so.
 */
function multipartError(err: Error & { code?: string }): Error {
  if (err instanceof ApiError || err.code === 'FST_REQ_FILE_TOO_LARGE') return err;
  if (err.code === 'FST_FILES_LIMIT')
    return fieldError(
      'body',
      'too many file parts: send one hosts part and at most one software part',
      'value_error.multipart',
    );
  if (err.code === 'FST_PARTS_LIMIT' || err.code === 'FST_FIELDS_LIMIT')
    return fieldError(
      'body',
      'too many form parts: send environment_id, hosts, software and the options only',
      'value_error.multipart',
    );
  return fieldError(
    'body',
    'the multipart body could not be read (missing boundary, truncated or malformed): send multipart/form-data with a boundary and a hosts part',
    'value_error.multipart',
  );
}

/**
 * After a refusal decided before the whole body was read, the rest of the body still sits on the connection: the
 * parser is detached and the rest discarded, and the answer says `Connection: close`, so a keep-alive client (or a
 * reverse proxy reusing its upstream connection) never sends its next request behind an unread body.
 */
function releaseUnreadBody(req: FastifyRequest, reply: FastifyReply) {
  const raw = req.raw;
  if (raw.complete) return;
  reply.header('connection', 'close');
  raw.unpipe();
  raw.resume();
}

export async function readMultipart(
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ fields: Record<string, string>; hostsCsv: string; softwareCsv: string | null }> {
  if (!req.isMultipart())
    throw fieldError('body', 'send multipart/form-data with a hosts part', 'type_error.multipart');
  if (!/;\s*boundary=/i.test(req.headers['content-type'] ?? '')) {
    throw fieldError(
      'body',
      'the Content-Type has no boundary: send multipart/form-data with a boundary and a hosts part',
      'value_error.multipart',
    );
  }
  const fields: Record<string, string> = {};
  const files: Record<string, string> = {};
  try {
    for await (const part of req.parts()) {
      const name = part.fieldname;
      if (part.type === 'file') {
        if (name !== 'hosts' && name !== 'software')
          throw fieldError(
            `body.${name.slice(0, 64)}`,
            'only the hosts and software parts may be files',
            'value_error.extra',
          );
        if (name in files)
          throw fieldError(`body.${name}`, `send one ${name} part (this request has several)`, 'value_error.duplicate');
        const bytes = await part.toBuffer();
        try {
          files[name] = UTF8.decode(bytes);
        } catch {
          throw fieldError(
            `body.${name}`,
            `the ${name} CSV is not valid UTF-8 (the spec requires UTF-8)`,
            'value_error.encoding',
          );
        }
      } else {
        if (name === 'hosts' || name === 'software') {
          if (name in files)
            throw fieldError(
              `body.${name}`,
              `send one ${name} part (this request has several)`,
              'value_error.duplicate',
            );
          files[name] = typeof part.value === 'string' ? part.value : '';
        } else {
          if (name in fields)
            throw fieldError(`body.${name.slice(0, 64)}`, 'form field sent more than once', 'value_error.duplicate');
          fields[name] = typeof part.value === 'string' ? part.value : '';
        }
      }
    }
  } catch (e) {
    releaseUnreadBody(req, reply);
    throw multipartError(asError(e));
  }
  if (files.hosts === undefined) throw fieldError('body.hosts', 'the hosts part is required', 'value_error.missing');
  return { fields, hostsCsv: files.hosts, softwareCsv: files.software ?? null };
}

export function readCsv(text: string, part: string): Record<string, string>[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: false,
      max_record_size: 1024 * 1024,
    });
  } catch (e) {
    // The parser's own message may quote cell text (a refused value is never echoed): its code and line only.
    const code = e instanceof CsvError ? e.code : undefined;
    const lines = e instanceof CsvError && typeof e.lines === 'number' ? e.lines : undefined;
    throw fieldError(
      `body.${part}`,
      `the ${part} CSV could not be read (${code ?? 'CSV_INVALID'}${lines ? ` at line ${lines}` : ''})`,
      'value_error.csv',
    );
  }
  if (rows.length === 0) throw fieldError(`body.${part}`, `the ${part} CSV has no header row`, 'value_error.csv');
  const header = rows[0].map((h) => h.trim());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw fieldError(`body.${part}`, `duplicate column ${dup.slice(0, 64)}`, 'value_error.csv');
  if (header.some((h) => h === ''))
    throw fieldError(`body.${part}`, 'empty column name in the header row', 'value_error.csv');
  if (part === 'software' && header.some((h) => !SOFTWARE_FIELDS.some((f) => f === h))) {
    throw fieldError('body.software', 'software columns are asset_id, name, publisher, version', 'value_error.csv');
  }
  // A multipart part is no parsed body, so the edge text check (http/text-guard.ts) runs here, on the header only
  // (its column names are every row's): each host and software row is validated alone, and a bad cell refuses that
  // row only, as in a JSON body.
  refuseHostileText(Object.fromEntries(header.map((h) => [h, ''])), `body.${part}`);
  return rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}
