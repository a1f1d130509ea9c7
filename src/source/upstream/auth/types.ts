/** How one upstream interface is authenticated. One implementation per credential form. */
export interface RequestAuth {
  /** Whether requests sent with this auth draw from the business's rate-limit budget. */
  readonly countsAgainstRateLimit: boolean;
  /** Headers to send; may log in first. Never logged. */
  headers(signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * After a 401 sent with `used` headers: renews the credential (once for everyone who saw the
   * same stale one) and says whether one more try is worth it.
   * @defaultValue absent: a 401 is final
   */
  refresh?(used: Record<string, string>, signal?: AbortSignal): Promise<boolean>;
}
