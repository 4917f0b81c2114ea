// Schema helpers shared by the route schemas.
import { Type } from 'typebox';
import { NAME_FORBIDDEN } from '../../domain/text.ts';

/**
 * A string from a fixed set, typed as the union of its values. Emitted as `enum` (not anyOf of consts): fast to
 * validate and serialize, and plain in OpenAPI.
 */
export function StringEnum<const T extends readonly string[]>(values: T, opts: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...opts });
}

/** The characters NAME_FORBIDDEN refuses, as a character-class body (its one definition, in domain/text.ts). */
const FORBIDDEN_IN_NAME = NAME_FORBIDDEN.source.slice(1, -1);

/**
 * A name shown to people (organization, environment, API key, feed token and webhook labels): a non-space
 * character, and no control characters (line breaks and tabs included), bidirectional controls or invisible characters (domain/text.ts
 * NAME_FORBIDDEN): an organization name is written as it is into the invitation emails the service sends, where a
 * line break would start a line of the sender's choosing.
 */
export const DISPLAY_NAME_PATTERN = `^(?=[\\s\\S]*\\S)[^${FORBIDDEN_IN_NAME}]*$`;
/** The same without the non-space rule (a form field where blank means "none"; a person's name). */
export const NAME_TEXT_PATTERN = `^[^${FORBIDDEN_IN_NAME}]*$`;

export function DisplayName(maxLength: number, opts: { description?: string } = {}) {
  return Type.String({ minLength: 1, maxLength, pattern: DISPLAY_NAME_PATTERN, ...opts });
}

/** A query string that accepts no parameters (unknown ones answer 400 UNKNOWN_PARAMETER). */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/** The body of a write that takes none (DELETE): absent (null to the validator), or an empty JSON object. */
export const NoBody = Type.Unsafe<Record<string, never> | null>({
  type: ['object', 'null'],
  additionalProperties: false,
});
