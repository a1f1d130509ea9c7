/**
 * HubSpot's CRM batch endpoints as every batch call uses them: reading their answers
 * (`results[]`, `errors[]`, `numErrors`), their size limit, and reading calls back by the unique
 * property (upserts whose results do not name it, archives, conflicts).
 */
import { chunks } from '../../src/base/chunks.js';
import { isHubSpotError } from './errors.js';
import type { HubSpotHttp } from './client.js';

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

/** HubSpot's batch size limit for CRM object batch endpoints. */
export const HUBSPOT_BATCH_LIMIT = 100;

/**
 * The object ids of the live calls whose unique property holds one of `values`
 * (`POST /crm/v3/objects/calls/batch/read` with `idProperty`, ≤ 100 a request), keyed by the
 * value HubSpot returns in that property; values HubSpot does not know are absent. With
 * `archived`, only calls in the recycling bin (HubSpot's `archived=true` query parameter).
 */
export async function readCallIdsByUnique(http: HubSpotHttp, idProperty: string, values: readonly string[], archived = false): Promise<Map<string, string>> {
  const path = archived ? '/crm/v3/objects/calls/batch/read?archived=true' : '/crm/v3/objects/calls/batch/read';
  const found = new Map<string, string>();
  for (const part of chunks(values, HUBSPOT_BATCH_LIMIT)) {
    const inputs = part.map((id) => ({ id }));
    let body: unknown;
    try {
      ({ body } = await http.send('POST', path, { idProperty, inputs, properties: [idProperty], propertiesWithHistory: [] }));
    } catch (error) {
      if (isHubSpotError(error) && error.kind === 'not_found') continue;
      throw error;
    }
    for (const result of batchParts(body).results) {
      const id = idOf(result);
      const value = propertyOf(result, idProperty);
      if (id !== null && value !== undefined) found.set(value, id);
    }
  }
  return found;
}

/** A string property of a result object, or undefined. */
export function propertyOf(result: unknown, name: string): string | undefined {
  const properties = typeof result === 'object' && result !== null ? (result as { properties?: unknown }).properties : undefined;
  const value = typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
