import type { RequestAuth } from './types.js';

/** v1 API key: `Authorization: Bearer <key>`; every request counts against the business's budget. */
export function apiKeyAuth(apiKey: string): RequestAuth {
  const headers = { authorization: `Bearer ${apiKey}` };
  return { countsAgainstRateLimit: true, headers: () => Promise.resolve({ ...headers }) };
}
