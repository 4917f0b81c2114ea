// Values whose shape is not known to the compiler (a request's query or body, a schema handed to a validator
// compiler): a type guard that checks, so their members are read as `unknown` and checked in turn.

/** An object that is not null and not an array: its members are unchecked values. */
export const isObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);
