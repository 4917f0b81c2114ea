// An untrusted value (parsed JSON, a submitted record) checked to be an object whose fields can be read.

/** True when v is an object other than null or an array; narrows v to a record of unknown values. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
