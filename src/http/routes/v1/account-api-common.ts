// What the account API routes share (account-manage.ts, account-keys.ts, account-organizations.ts): the empty
// `meta` of their answers and the credentials they take (an API key or a browser session).
import { Type } from 'typebox';

export const Empty = Type.Object({});
export const key: { apiKey: string[] } = { apiKey: [] };
export const session: { session: string[] } = { session: [] };
