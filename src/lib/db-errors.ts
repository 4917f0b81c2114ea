// What a database error means to a caller, read from its SQLSTATE or the driver's message: pure functions over an
// error value, used by the store and by the HTTP error handler and health route alike (which import no store/ value).
import { errorField } from './errors.ts';

/**
 * Errors that mean "the database is not reachable" (mapped to 503, retry 30): connection exceptions (class 08),
 * admin shutdown / crash / "cannot connect now" (57P01-57P03), too many connections (53300), a database not
 * accepting connections (55000 with that message: ALTER DATABASE … ALLOW_CONNECTIONS false, or being dropped),
 * socket errors, and pg's client-side failures (connect timeout, query deadline).
 */
export function isConnectionError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = errorField(err, 'code');
  const message = errorField(err, 'message');
  if (typeof code === 'string') {
    if (/^(08|57P0[1-3]|53300)/.test(code)) return true;
    // 55000 is a broad class (object not in prerequisite state); only its connection-refusal message counts.
    if (code === '55000' && typeof message === 'string' && /not currently accepting connections/.test(message))
      return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  }
  // pg's own client-side failures carry no code.
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|^Query read timeout$/.test(
      message,
    )
  );
}

/**
 * SQLSTATE 23503 on a row that names a member no longer there: the caller's member was removed from its organization
 * (DELETE /account/team/{id}) after the request was authenticated and before its write (a key, a session, training
 * progress, preferences, a watch entry, a feed token, an invitation). Mapped to 401, never a 500.
 */
export function isRemovedMember(err: unknown): boolean {
  const detail = errorField(err, 'detail');
  return (
    errorField(err, 'code') === '23503' &&
    typeof detail === 'string' &&
    / is not present in table "members"\.$/.test(detail)
  );
}

/** SQLSTATE 57014: statement_timeout / query_canceled (mapped to 500 with retry 5). */
export function isStatementTimeout(err: unknown): boolean {
  return errorField(err, 'code') === '57014';
}
