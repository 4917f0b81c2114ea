// Text rules shared by the edge check (http/text-guard.ts) and the Windows host validator: one definition of a
// lone UTF-16 surrogate (legal as a `\uD800` escape in JSON, but no Unicode character; PostgreSQL cannot store it).

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
