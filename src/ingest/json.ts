// Defensive accessors for feed JSON: a feed may serve any shape, and a reader must then either skip the
// value or throw FeedFormatError, never crash on a TypeError (reliability API10).

import { Type } from 'typebox';
import { readLines, readText } from './io.ts';
import { FeedFormatError } from './types.ts';
import { errorMessage, errorField } from '../lib/errors.ts';

export const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
/** A JSON object: not null, not an array. */
export const isRecord = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);
/** A JSON object with its members typed unknown (each checked before use); anything else reads as an empty one. */
export const record = (x: unknown): Record<string, unknown> => (isRecord(x) ? x : {});
export const str = (x: unknown): string => (typeof x === 'string' ? x : '');
export const strOrNull = (x: unknown): string | null => (typeof x === 'string' ? x : null);
/** A CVSS base score: a number from 0 to 10, else none (1e308 stopped a whole import at the database's real column). */
export const cvssScore = (x: unknown): number | null => (typeof x === 'number' && x >= 0 && x <= 10 ? x : null);
/** The string members of an array (a tag list may hold anything; String() of an object can throw). */
export const strings = (x: unknown): string[] => arr(x).filter((v): v is string => typeof v === 'string');

/**
 * A schema member of any value: a field the reader takes only when it has the type it reads (else as absent), so a
 * record is never refused for it.
 */
export const Loose = Type.Optional(Type.Unknown());

// `\u0000` not itself escaped (an odd run of backslashes before it would make it literal text "\u0000").
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

/**
 * JSON.parse for feed text, with every U+0000 read as U+FFFD: PostgreSQL text and jsonb cannot hold U+0000, so one
 * record holding it (a `\u0000` escape: a raw NUL is no JSON) stopped a whole import with a bare database error,
 * and every later run and sync at the same record. A lone surrogate needs nothing here: it is written as U+FFFD.
 */
export function parseFeedJson(text: string): unknown {
  return JSON.parse(text.includes('\\u0000') ? text.replace(NUL_ESCAPE, '$1\\ufffd') : text);
}

/**
 * The JSON documents of a file: the whole file as one document, or one document per line (blank lines skipped), each
 * with where it was read (`path`, or `path:line`). A document that does not parse stops the file with a
 * FeedFormatError naming `what` (CSAF JSON, CVE Record JSON) and the line.
 */
export async function* jsonDocuments(
  path: string,
  layout: 'document' | 'jsonl',
  what: string,
): AsyncGenerator<{ doc: unknown; where: string }> {
  if (layout === 'document') {
    let doc: unknown;
    try {
      doc = parseFeedJson(await readText(path));
    } catch (err) {
      throw new FeedFormatError(`${path}: not valid ${what} (${errorMessage(err)})`);
    }
    yield { doc, where: path };
    return;
  }
  let n = 0;
  const lines = readLines(path)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<string>;
    try {
      next = await lines.next();
    } catch (err) {
      // A cut or damaged .gz ("unexpected end of file"), named with the line it reached; other errors (a missing
      // file) keep their own code.
      const code = errorField(err, 'code');
      if (typeof code === 'string' && code.startsWith('Z_'))
        throw new FeedFormatError(`${path}:${n + 1}: cannot be read on (${errorMessage(err)})`);
      throw err;
    }
    if (next.done) break;
    const line = next.value;
    n++;
    if (!line.trim()) continue;
    let doc: unknown;
    try {
      doc = parseFeedJson(line);
    } catch {
      throw new FeedFormatError(`${path}:${n}: not one ${what} per line`);
    }
    yield { doc, where: `${path}:${n}` };
  }
}
