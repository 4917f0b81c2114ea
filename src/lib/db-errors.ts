// What a database error means to a caller, read from its SQLSTATE or the driver's message: pure functions over an
// error value, used by the store and by the HTTP error handler and health route alike (which import no store/ value).

/**
 * Errors that mean "the database is not reachable" (mapped to 503, retry 30): connection exceptions (class 08),
 * admin shutdown / crash / "cannot connect now" (57P01-57P03), too many connections (53300), a database not
 * accepting connections (55000 with that message: ALTER DATABASE … ALLOW_CONNECTIONS false, or being dropped),
 * socket errors, and pg's client-side failures (connect timeout, query deadline).
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string') {
    if (/^(08|57P0[1-3]|53300)/.test(e.code)) return true;
    // 55000 is a broad class (object not in prerequisite state); only its connection-refusal message counts.
    if (e.code === '55000' && typeof e.message === 'string' && /not currently accepting connections/.test(e.message)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(e.code)) return true;
  }
  // pg's own client-side failures carry no code.
  return typeof e.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|^Query read timeout$/.test(e.message);
}

/**
 * SQLSTATE 23503 on a row that names a member no longer there: the caller's member was removed from its organization
 * (DELETE /account/team/{id}) after the request was authenticated and before its write (a key, a session, training
 * progress, preferences, a watch entry, a feed token, an invitation). Mapped to 401, never a 500.
 */
export function isRemovedMember(err: unknown): boolean {
  const e = err as { code?: string; detail?: unknown };
  return e?.code === '23503' && typeof e.detail === 'string' && / is not present in table "members"\.$/.test(e.detail);
}

/** SQLSTATE 57014: statement_timeout / query_canceled (mapped to 500 with retry 5). */
export function isStatementTimeout(err: unknown): boolean {
  return (err as { code?: string })?.code === '57014';
}
