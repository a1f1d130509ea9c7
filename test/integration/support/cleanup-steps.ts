import { afterEach } from 'vitest';

/** What a test pushes as it starts things: each entry stops or removes one of them. */
export type CleanupSteps = Array<() => Promise<unknown>>;

/**
 * Cleanup steps a test file pushes as it starts things; `hook` (`afterEach` unless said) runs them
 * last pushed first, so what was started on top of something stops before it.
 */
export function cleanupSteps(hook: (run: () => Promise<void>) => void = afterEach): CleanupSteps {
  const steps: CleanupSteps = [];
  hook(async () => {
    for (const step of steps.splice(0).reverse()) await step();
  });
  return steps;
}
