import { chunks } from '../../src/base/chunks.js';
import { invalidAnswer } from './classify.js';
import { batchParts, errorMessageFor, HUBSPOT_BATCH_LIMIT, idOf, readCallIdsByUnique } from './batch-answer.js';
import { HubSpotError } from './errors.js';
import type { HubSpotHttp } from './client.js';
import { tombstoneValue } from './tombstone.js';

const UPDATE = '/crm/v3/objects/calls/batch/update';

/**
 * Archives the calls whose unique property holds one of `uniqueValues` (HubSpot's own deletion:
 * the call goes to the recycling bin, restorable in HubSpot's app for 90 days). Per chunk of 100:
 * the calls are read by the unique property (`batch/read` with `idProperty`), their unique value
 * is moved aside to a tombstone (`batch/update`, see `tombstone.ts`) so that a record coming back
 * upstream can be upserted again as exactly one live call, then they are archived by object id
 * (`batch/archive`). When a step fails, the values already moved are put back before the error is
 * thrown, so a retry finds the calls again. Values HubSpot does not know are skipped: already
 * archived or never stored. Resolves with the number of calls archived.
 */
export async function archiveCalls(http: HubSpotHttp, idProperty: string, uniqueValues: readonly string[]): Promise<number> {
  let archived = 0;
  for (const part of chunks(uniqueValues, HUBSPOT_BATCH_LIMIT)) {
    const live = [...(await readCallIdsByUnique(http, idProperty, part))].map(([value, id]) => ({ id, value }));
    if (live.length === 0) continue;
    const moved = await setUniqueValues(
      http,
      idProperty,
      live.map(({ id, value }) => ({ id, value: tombstoneValue(value, id) })),
    );
    try {
      if (moved.refused.length > 0) throw refusal(idProperty, moved.refused);
      if (moved.updated.size === 0) continue;
      await http.send('POST', '/crm/v3/objects/calls/batch/archive', { inputs: [...moved.updated].map((id) => ({ id })) });
    } catch (error) {
      await setUniqueValues(
        http,
        idProperty,
        live.filter(({ id }) => moved.updated.has(id)),
      ).catch(() => undefined);
      throw error;
    }
    archived += moved.updated.size;
  }
  return archived;
}

/**
 * Sets the unique property of calls by object id: the ids HubSpot updated, and its errors other
 * than OBJECT_NOT_FOUND (a call archived meanwhile is simply not there any more).
 */
async function setUniqueValues(
  http: HubSpotHttp,
  idProperty: string,
  values: readonly { id: string; value: string }[],
): Promise<{ updated: Set<string>; refused: unknown[] }> {
  if (values.length === 0) return { updated: new Set(), refused: [] };
  const { body } = await http.send('POST', UPDATE, { inputs: values.map(({ id, value }) => ({ id, properties: { [idProperty]: value } })) });
  const { results, errors } = batchParts(body);
  const updated = new Set(results.map(idOf).filter((id): id is string => id !== null));
  return { updated, refused: errors.filter((error) => (error as { category?: unknown }).category !== 'OBJECT_NOT_FOUND') };
}

function refusal(idProperty: string, errors: readonly unknown[]): HubSpotError {
  const reason = `HubSpot refused to move ${idProperty} aside before archiving: ${errorMessageFor([], errors)}`;
  return new HubSpotError({ method: 'POST', path: UPDATE }, invalidAnswer(reason));
}
