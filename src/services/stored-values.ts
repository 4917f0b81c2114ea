// Stored text from a fixed set of values (a column's CHECK constraint, a host's warnings), read as that set's type:
// each value is looked up in the set; one outside it fails loudly (oneOf) or is one the reader does not know
// (storedWarnings).
import type { ExploitMaturity } from '../domain/cve-document.ts';
import type { HostWarning } from '../domain/windows/host-record.ts';
import { isOneOf } from '../domain/one-of.ts';

/** `value` as one of `values`; throws when it is none of them (`what` names the column in the message). */
export function oneOf<const T extends string>(values: readonly T[], value: string, what: string): T {
  if (!isOneOf(values, value)) throw new Error(`${what}: unexpected stored value ${JSON.stringify(value)}`);
  return value;
}

/** The exploit maturities a CVE document states (domain/cve-document.ts ExploitMaturity). */
export const EXPLOIT_MATURITIES: readonly ExploitMaturity[] = ['NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'];

/** An organization's or a member's status (organizations.status, members.status). */
export const ACCOUNT_STATUSES = ['active', 'deactivated'] as const;

/** The stored host warnings the Windows engine knows (validateHost's HostWarning). */
export function storedWarnings(stored: readonly string[]): HostWarning[] {
  return stored.filter((w): w is HostWarning => w === 'needs_revision');
}
