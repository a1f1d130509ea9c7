import type { HubSpotHttp } from './http-client.js';
import { HUBSPOT_BATCH_LIMIT, readCallIdsByUnique } from './read-by-unique.js';

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
    const ids = [...(await readCallIdsByUnique(http, idProperty, uniqueValues.slice(start, start + HUBSPOT_BATCH_LIMIT))).values()];
    if (ids.length === 0) continue;
    await http.send('POST', '/crm/v3/objects/calls/batch/archive', { inputs: ids.map((id) => ({ id })) });
    archived += ids.length;
  }
  return archived;
}
