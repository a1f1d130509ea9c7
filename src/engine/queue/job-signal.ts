/** One job's abort signal, following longer-lived ones until the job ends. */
export interface JobSignal {
  readonly signal: AbortSignal;
  /** Aborts this job only (e.g. its lock was lost). */
  abort(reason: unknown): void;
  /** Unlinks from the sources; call once the job has ended. Safe to call twice. */
  dispose(): void;
}

/**
 * A per-job signal aborted when any source is (the process's shutdown, BullMQ's cancel), linked
 * by listeners removed at the job's end. Not `AbortSignal.any`: a composite of a process-lifetime
 * signal stays reachable from it while anything listens on the composite (a Node issue), so every
 * listener a job left behind, and all it holds, lived as long as the process (~5 KB a job in `run`).
 */
export function jobSignal(sources: readonly (AbortSignal | undefined)[]): JobSignal {
  const controller = new AbortController();
  const linked: AbortSignal[] = [];
  const follow = (event: Event): void => {
    const source = event.target as AbortSignal;
    controller.abort(source.reason);
  };
  for (const source of sources) {
    if (source === undefined) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    source.addEventListener('abort', follow, { once: true });
    linked.push(source);
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    dispose() {
      for (const source of linked.splice(0)) source.removeEventListener('abort', follow);
    },
  };
}
