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
 * Invisible characters: soft hyphen, combining grapheme joiner, Mongolian vowel separator, zero-width space, word
 * joiner and the invisible operators, byte order mark, Hangul fillers. NFKC keeps them, so "pr\u200bod" and "prod"
 * would be two names (or two asset_ids) shown alike. The zero-width joiner and non-joiner (U+200C, U+200D) stay
 * allowed: Persian and Indic text needs them. One definition for asset_ids (windows/identifying.ts) and names.
 */
export const INVISIBLE = /[\u00ad\u034f\u115f\u1160\u180e\u200b\u2060-\u2064\u3164\ufeff\uffa0]/;

/**
 * What a name shown to people must not hold: control characters (C0 with tab and line breaks, DEL, C1), which would
 * break it over lines where it is written (an invitation email's text, a page title), BIDI_CONTROL, and INVISIBLE
 * characters, with which two names look the same ("prod" and "pr\u200bod").
 */
export const NAME_FORBIDDEN = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- each listed character is refused alone (the combining grapheme joiner among them), none is meant to combine
  `[\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069${INVISIBLE.source.slice(1, -1)}]`,
);

/** Why a name holding NAME_FORBIDDEN is refused (the API's schema message and the CLI's). */
export const NAME_TEXT_MESSAGE =
  'must not hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)';
