import { z } from 'zod';

/** A service's documented defaults and its own ceiling on attempts. */
interface RetryDefaults {
  /** Attempts per request including the first, when the config names none. */
  readonly maxAttempts: number;
  /** Largest `maxAttempts` the service accepts (a batch retried longer holds its slot too long). @defaultValue no ceiling */
  readonly maxAttemptsCeiling?: number;
  /** @defaultValue 500 */
  readonly baseDelayMs?: number;
  /** @defaultValue 30000 */
  readonly maxDelayMs?: number;
}

/**
 * The one `retry:` section of every service (upstream, HubSpot, Salesforce, webhook): attempts
 * including the first, the backoff cap of the first retry (doubling per attempt, full jitter, see
 * `backoffDelayMs`) and the largest backoff. Each service passes its documented defaults; every
 * one refuses a `maxDelayMs` below `baseDelayMs` (the backoff would never reach its base).
 * Absent, the section is its defaults.
 */
export function retrySchema(defaults: RetryDefaults) {
  const attempts = z.int().min(1);
  return z
    .strictObject({
      maxAttempts: (defaults.maxAttemptsCeiling === undefined ? attempts : attempts.max(defaults.maxAttemptsCeiling)).default(defaults.maxAttempts),
      baseDelayMs: z
        .int()
        .min(0)
        .default(defaults.baseDelayMs ?? 500),
      maxDelayMs: z
        .int()
        .min(0)
        .default(defaults.maxDelayMs ?? 30_000),
    })
    .refine((retry) => retry.maxDelayMs >= retry.baseDelayMs, {
      error: (issue) => delayMessage(issue.input),
      path: ['maxDelayMs'],
    })
    .prefault({});
}

/** The retry policy a `retrySchema` yields. */
export type RetryPolicy = z.output<ReturnType<typeof retrySchema>>;

function delayMessage(input: unknown): string {
  const { baseDelayMs, maxDelayMs } = input as { baseDelayMs?: unknown; maxDelayMs?: unknown };
  return `maxDelayMs (${String(maxDelayMs)}) must be at least baseDelayMs (${String(baseDelayMs)})`;
}
