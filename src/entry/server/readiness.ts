/** A dependency check: resolves when the dependency is usable, rejects with the reason otherwise. */
export type ReadinessCheck = () => Promise<void>;

type CheckOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** The body of `GET /readyz`. */
interface ReadinessReport {
  readonly ready: boolean;
  /** Names of the checks that failed or timed out, in the order given. */
  readonly failing: readonly string[];
  readonly checks: Readonly<Record<string, CheckOutcome>>;
}

/** How long one check may take before it counts as failed. */
export const DEFAULT_READINESS_TIMEOUT_MS = 2_000;

function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  // A check that throws synchronously is as failed as one that rejects.
  const run = Promise.resolve().then(check);
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check at once; a hanging check costs at most `timeoutMs`. */
export async function runReadinessChecks(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs: number = DEFAULT_READINESS_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.all(
    names.map(async (name): Promise<CheckOutcome> => {
      try {
        await withTimeout(checks[name] as ReadinessCheck, timeoutMs);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const failing = names.filter((_, i) => !outcomes[i]?.ok);
  return {
    ready: failing.length === 0,
    failing,
    checks: Object.fromEntries(names.map((name, i) => [name, outcomes[i] as CheckOutcome])),
  };
}
