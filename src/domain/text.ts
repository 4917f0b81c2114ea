// Text rules shared by the edge check (http/text-guard.ts) and the Windows host validator: one definition of a
// lone UTF-16 surrogate (legal as a `\uD800` escape in JSON, but no Unicode character; PostgreSQL cannot store it).

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069): in a name shown to other
 * people (an organization, an environment, a key or webhook label) they reorder the text around them, so a label
 * can read as something else ("Trojan Source"). Names refuse them; the marks U+200E/U+200F that right-to-left text
 * legitimately uses stay allowed.
 */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * What a name shown to people must not hold: control characters (C0 with tab and line breaks, DEL, C1), which would
 * break it over lines where it is written (an invitation email's text, a page title), and BIDI_CONTROL.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
export const NAME_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

/** Why a name holding NAME_FORBIDDEN is refused (the API's schema message and the CLI's). */
export const NAME_TEXT_MESSAGE = 'must not hold control characters (line breaks and tabs included) or bidirectional controls (U+202A to U+202E, U+2066 to U+2069)';
