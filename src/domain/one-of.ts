// Membership of a closed list of strings (the `as const` tuples of tiers, roles, resources) as a type guard.

/** True when v is one of list's values; narrows v to the list's union. */
export function isOneOf<T extends string>(list: readonly T[], v: string): v is T {
  return list.some((x) => x === v);
}
