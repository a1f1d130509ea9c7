import { batchParts, idOf } from './batch-answer.js';
import { isHubSpotError } from './errors.js';
import type { HubSpotHttp } from './http-client.js';

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
  for (let start = 0; start < values.length; start += HUBSPOT_BATCH_LIMIT) {
    const inputs = values.slice(start, start + HUBSPOT_BATCH_LIMIT).map((id) => ({ id }));
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
