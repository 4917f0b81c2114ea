// One error per field for "value or null" fields and other unions (TypeBox Type.Union, JSON Schema anyOf). Ajv
// reports a value that matches no branch of an anyOf as one error per branch plus the anyOf itself: a bad
// `min_bcs` came back as "must be number", "must be null" and "must match a schema in anyOf". Here those become
// one error on the field:
// - a branch the value has the type of, failing one of its other rules (a number above its maximum, a string over
//   its length or not matching its pattern, an object with a field too many): that branch's own error, which is
//   what is wrong with the value;
// - otherwise (the value has the type of no branch, or matches none of the allowed values): one error saying what
//   is accepted, "must be a number or null", "must be one of: LOW, MEDIUM, HIGH, CRITICAL, or null".

/** The fields of an Ajv error this module reads; `text`, when set, is the finished message. */
export interface AjvErr {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  text?: string;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** Keywords that say a value is not of a branch's kind at all (as opposed to breaking one of its rules). */
const KIND = new Set(['type', 'enum', 'const']);

/** "a, b or c". */
function listOf(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

/** The one error standing for a failed anyOf at `anyOf`, from the errors of its branches. */
function collapse(anyOf: AjvErr, branchErrors: AjvErr[]): AjvErr[] {
  const prefix = `${anyOf.schemaPath}/`;
  const at = anyOf.instancePath ?? '';
  const branches = new Map<string, AjvErr[]>();
  for (const e of branchErrors) {
    const branch = e.schemaPath!.slice(prefix.length).split('/')[0];
    branches.set(branch, [...(branches.get(branch) ?? []), e]);
  }
  const all = [...branches.values()];
  // A branch of the value's type that it fails by one of its other rules: that is the error to report.
  const nearMiss = all.find((errs) => errs.some((e) => (e.instancePath ?? '') !== at || !KIND.has(e.keyword ?? '')));
  if (nearMiss) return nearMiss.filter((e) => (e.instancePath ?? '') !== at || !KIND.has(e.keyword ?? ''));
  // The value is of no branch's kind: say what each branch accepts.
  const values: string[] = [];
  const kinds: string[] = [];
  let firstType: string | undefined;
  for (const errs of all) {
    const listed = errs.find((e) => e.keyword === 'enum' || e.keyword === 'const');
    const allowed: unknown = listed?.params?.allowedValues;
    if (listed?.keyword === 'enum' && Array.isArray(allowed)) values.push(...allowed.map(String));
    else if (listed?.keyword === 'const') values.push(String(listed.params?.allowedValue));
    else {
      const type = errs.find((e) => e.keyword === 'type')?.params?.type;
      const t = typeof type === 'string' ? type : 'invalid';
      if (t !== 'null') firstType ??= t;
      if (!kinds.includes(ARTICLE[t] ?? t)) kinds.push(ARTICLE[t] ?? t);
    }
  }
  if (values.length > 0) {
    const rest = kinds.length ? `, or ${listOf(kinds)}` : '';
    return [
      {
        instancePath: at,
        schemaPath: anyOf.schemaPath,
        keyword: 'enum',
        params: { allowedValues: values },
        text: `must be one of: ${values.join(', ')}${rest}`,
      },
    ];
  }
  return [
    {
      instancePath: at,
      schemaPath: anyOf.schemaPath,
      keyword: 'type',
      params: { type: firstType ?? 'null' },
      text: `must be ${listOf(kinds)}`,
    },
  ];
}

/**
 * Ajv errors with each failed anyOf (with its branch errors) replaced by one error for its field. Ajv lists a
 * branch's errors before the anyOf error, inner anyOfs before outer ones, so one pass collapses nested unions
 * from the inside out.
 */
export function collapseUnionErrors(errors: readonly AjvErr[]): AjvErr[] {
  const out: AjvErr[] = [];
  for (const e of errors) {
    if ((e.keyword !== 'anyOf' && e.keyword !== 'oneOf') || typeof e.schemaPath !== 'string') {
      out.push(e);
      continue;
    }
    const prefix = `${e.schemaPath}/`;
    let i = out.length;
    while (i > 0 && out[i - 1].schemaPath?.startsWith(prefix)) i--;
    const branchErrors = out.splice(i);
    // A oneOf matched by two branches has no branch errors: its own message says so.
    out.push(...(branchErrors.length ? collapse(e, branchErrors) : [e]));
  }
  return out;
}
