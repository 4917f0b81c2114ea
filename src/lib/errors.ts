// What a caught value says, without asserting that it is an Error: a thrown non-Error (a string, an object) is
// turned into text instead of reading `.message` off it as undefined.

/** The message of a caught value: an Error's message, anything else as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A caught value as an Error: itself when it is one, else an Error carrying its text. */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** A field of a caught value (a pg error's code or detail, a Node error's code), when it is an object holding it. */
export function errorField<K extends string>(e: unknown, key: K): unknown {
  return typeof e === 'object' && e !== null && key in e ? Reflect.get(e, key) : undefined;
}

/** The code of a caught value (a SQLSTATE, a Node errno code), when it has a string one. */
export function errorCode(e: unknown): string | undefined {
  const code = errorField(e, 'code');
  return typeof code === 'string' ? code : undefined;
}
