/** How one upstream interface is authenticated. One implementation per credential form. */
export interface RequestAuth {
  /** Whether requests sent with this auth draw from the business's rate-limit budget. */
  readonly countsAgainstRateLimit: boolean;
  /** Headers that never change (a key, a token): sent as they are, without asking `headers`. @defaultValue none: ask `headers` for every attempt */
  readonly fixed?: Readonly<Record<string, string>>;
  /** Headers to send; may log in first. Never logged. */
  headers(signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * After a 401 sent with `used` headers: renews the credential (once for everyone who saw the
   * same stale one) and says whether one more try is worth it.
   * @defaultValue absent: a 401 is final
   */
  refresh?(used: Record<string, string>, signal?: AbortSignal): Promise<boolean>;
}

/** v1 API key: `Authorization: Bearer <key>`; every request counts against the business's budget. */
export function apiKeyAuth(apiKey: string): RequestAuth {
  const fixed = { authorization: `Bearer ${apiKey}` };
  return { countsAgainstRateLimit: true, fixed, headers: () => Promise.resolve({ ...fixed }) };
}

/**
 * v2 bearer token: `Authorization: Bearer <token>`. v2 limits are not documented; its requests are
 * counted against the business's budget so that they can never push v1 into 429s.
 */
export function v2BearerAuth(token: string): RequestAuth {
  const fixed = { authorization: `Bearer ${token}` };
  return { countsAgainstRateLimit: true, fixed, headers: () => Promise.resolve({ ...fixed }) };
}
