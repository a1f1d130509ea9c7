/** Reading HubSpot's batch answers (`results[]`, `errors[]`, `numErrors`), shared by every batch call. */

/** The `results` and `errors` arrays of a batch answer; missing or malformed ones are empty. */
export function batchParts(body: unknown): { readonly results: readonly unknown[]; readonly errors: readonly unknown[] } {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  return {
    results: Array.isArray(record.results) ? (record.results as unknown[]) : [],
    errors: Array.isArray(record.errors) ? (record.errors as unknown[]) : [],
  };
}

/** A HubSpot object id (`id`, string or number) of a result, or null. */
export function idOf(object: unknown): string | null {
  if (typeof object !== 'object' || object === null) return null;
  const id = (object as { id?: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * HubSpot's message for one input of a batch: the error whose `context` names one of `keys`,
 * else every distinct message (HubSpot does not always say which input an error belongs to).
 */
export function errorMessageFor(keys: readonly string[], errors: readonly unknown[]): string {
  const messages = errors.map((error) => {
    const { message, context } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; context?: unknown };
    return { message: typeof message === 'string' ? message : 'rejected without a message', context: JSON.stringify(context ?? null) };
  });
  const named = messages.find((entry) => keys.every((key) => entry.context.includes(JSON.stringify(key))));
  if (named !== undefined) return named.message;
  if (messages.length === 0) return 'no result returned for this input';
  return [...new Set(messages.map((entry) => entry.message))].join('; ');
}

/** HubSpot's category (`CONFLICT`, `VALIDATION_ERROR`, …) of the error whose `context` names one of `keys`, if any does. */
export function errorCategoryFor(keys: readonly string[], errors: readonly unknown[]): string | undefined {
  for (const error of errors) {
    const { category, context } = (typeof error === 'object' && error !== null ? error : {}) as { category?: unknown; context?: unknown };
    const text = JSON.stringify(context ?? null);
    if (typeof category === 'string' && keys.every((key) => text.includes(JSON.stringify(key)))) return category;
  }
  return undefined;
}
