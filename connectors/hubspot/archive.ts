import { isHubSpotError } from './errors.js';
import type { HubSpotHttp } from './http-client.js';
import { HUBSPOT_BATCH_LIMIT } from './upsert.js';

/**
 * Archives the calls whose unique property holds one of `uniqueValues` (HubSpot's own deletion:
 * the call goes to the recycling bin, restorable for 90 days). HubSpot archives by object id, so
 * each chunk is first read by the unique property (`batch/read` with `idProperty`), then archived
 * (`POST /crm/v3/objects/calls/batch/archive`). Values HubSpot does not know are skipped: already
 * archived or never stored. Resolves with the number of calls archived.
 */
export async function archiveCalls(http: HubSpotHttp, idProperty: string, uniqueValues: readonly string[]): Promise<number> {
  let archived = 0;
  for (let start = 0; start < uniqueValues.length; start += HUBSPOT_BATCH_LIMIT) {
    const inputs = uniqueValues.slice(start, start + HUBSPOT_BATCH_LIMIT).map((id) => ({ id }));
    const ids = await readIds(http, idProperty, inputs);
    if (ids.length === 0) continue;
    await http.send('POST', '/crm/v3/objects/calls/batch/archive', { inputs: ids.map((id) => ({ id })) });
    archived += ids.length;
  }
  return archived;
}

async function readIds(http: HubSpotHttp, idProperty: string, inputs: readonly { id: string }[]): Promise<string[]> {
  let body: unknown;
  try {
    ({ body } = await http.send('POST', '/crm/v3/objects/calls/batch/read', { idProperty, inputs, properties: [idProperty] }));
  } catch (error) {
    if (isHubSpotError(error) && error.kind === 'not_found') return [];
    throw error;
  }
  const results = typeof body === 'object' && body !== null ? (body as { results?: unknown }).results : undefined;
  if (!Array.isArray(results)) return [];
  return results.flatMap((result: unknown) => {
    const id = typeof result === 'object' && result !== null ? (result as { id?: unknown }).id : undefined;
    return typeof id === 'string' || typeof id === 'number' ? [String(id)] : [];
  });
}
