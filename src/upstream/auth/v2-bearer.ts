import type { RequestAuth } from './types.js';

/**
 * v2 bearer token: `Authorization: Bearer <token>`. v2 limits are not documented; its requests are
 * counted against the business's budget so that they can never push v1 into 429s.
 */
export function v2BearerAuth(token: string): RequestAuth {
  const headers = { authorization: `Bearer ${token}` };
  return { countsAgainstRateLimit: true, headers: () => Promise.resolve({ ...headers }) };
}
