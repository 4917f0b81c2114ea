// Text the database hands back for a column whose CHECK constraint allows a fixed set of values, read as that set's
// type: the value is looked up in the set, and one outside it (a schema the code does not know) fails loudly.
import type { ExploitMaturity } from '../domain/cve-document.ts';

/** `value` as one of `values`; throws when it is none of them (`what` names the column in the message). */
export function oneOf<const T extends string>(values: readonly T[], value: string, what: string): T {
  const found = values.find((v) => v === value);
  if (found === undefined) throw new Error(`${what}: unexpected stored value ${JSON.stringify(value)}`);
  return found;
}

/** The exploit maturities a CVE document states (domain/cve-document.ts ExploitMaturity). */
export const EXPLOIT_MATURITIES: readonly ExploitMaturity[] = ['NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'];

/** An organization's or a member's status (organizations.status, members.status). */
export const ACCOUNT_STATUSES = ['active', 'deactivated'] as const;
