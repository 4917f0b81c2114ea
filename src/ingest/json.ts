// Defensive accessors for feed JSON: a feed may serve any shape, and a reader must then either skip the
// value or throw FeedFormatError, never crash on a TypeError (reliability API10).

/* eslint-disable @typescript-eslint/no-explicit-any */
export const arr = (x: unknown): any[] => (Array.isArray(x) ? x : []);
export const obj = (x: unknown): Record<string, any> => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, any>) : {});
export const str = (x: unknown): string => (typeof x === 'string' ? x : '');
export const strOrNull = (x: unknown): string | null => (typeof x === 'string' ? x : null);
export const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
/** The string members of an array (a tag list may hold anything; String() of an object can throw). */
export const strings = (x: unknown): string[] => arr(x).filter((v): v is string => typeof v === 'string');
