import { chunks } from '../../src/base/chunks.js';
import { batchParts, errorCategoryFor, errorMessageFor, HUBSPOT_BATCH_LIMIT, idOf, propertyOf, readCallIdsByUnique } from './batch-answer.js';
import { isHubSpotError, type HubSpotError } from './errors.js';
import type { HubSpotHttp } from './client.js';

/** One call to upsert, keyed by its unique property value. */
export interface CallInput<T> {
  readonly uniqueValue: string;
  readonly properties: Readonly<Record<string, string>>;
  /** The caller's own data, handed back in the outcome. */
  readonly item: T;
}

interface UpsertOutcome<T> {
  readonly stored: { readonly input: CallInput<T>; readonly hubspotId: string }[];
  /** Inputs HubSpot refused, with HubSpot's message; `conflict` when HubSpot called it one (409, category CONFLICT). */
  readonly rejected: { readonly input: CallInput<T>; readonly reason: string; readonly conflict: boolean }[];
}

/**
 * Upserts calls by the unique property (`POST /crm/v3/objects/calls/batch/upsert`), at most 100
 * distinct ids per request. A 207 keeps the good results and rejects the inputs HubSpot names;
 * results are matched to inputs by the id property only (see {@link collect}).
 * A whole-batch 400/409 is bisected until the records at fault stand alone; they are rejected
 * with HubSpot's message and the rest is stored. When every record of a batch fails with one
 * and the same message the fault is not in the records (a property or scope problem): the
 * error is thrown instead, so nothing is dead-lettered and the checkpoint stays.
 */
export async function upsertCalls<T>(http: HubSpotHttp, idProperty: string, inputs: readonly CallInput<T>[]): Promise<UpsertOutcome<T>> {
  const outcome: UpsertOutcome<T> = { stored: [], rejected: [] };
  for (const chunk of chunks(inputs, HUBSPOT_BATCH_LIMIT)) {
    const part: UpsertOutcome<T> = { stored: [], rejected: [] };
    const firstError = await upsertBisecting(http, idProperty, chunk, part);
    const reasons = new Set(part.rejected.map((rejection) => rejection.reason));
    if (firstError !== undefined && chunk.length > 1 && part.stored.length === 0 && reasons.size === 1) throw firstError;
    outcome.stored.push(...part.stored);
    outcome.rejected.push(...part.rejected);
  }
  return outcome;
}

async function upsertBisecting<T>(
  http: HubSpotHttp,
  idProperty: string,
  inputs: readonly CallInput<T>[],
  into: UpsertOutcome<T>,
): Promise<HubSpotError | undefined> {
  if (inputs.length === 0) return undefined;
  try {
    const { body } = await http.send('POST', '/crm/v3/objects/calls/batch/upsert', {
      inputs: inputs.map((input) => ({ id: input.uniqueValue, idProperty, properties: input.properties })),
    });
    await collect(http, body, idProperty, inputs, into);
    return undefined;
  } catch (error) {
    if (!isHubSpotError(error) || !error.batchRejection) throw error;
    if (inputs.length === 1 && inputs[0] !== undefined) {
      into.rejected.push({ input: inputs[0], reason: `hubspot: ${error.hubspotMessage ?? error.message}`, conflict: error.kind === 'conflict' });
      return error;
    }
    const middle = Math.ceil(inputs.length / 2);
    await upsertBisecting(http, idProperty, inputs.slice(0, middle), into);
    await upsertBisecting(http, idProperty, inputs.slice(middle), into);
    return error;
  }
}

/**
 * Reads a 200/207 batch answer. Results are matched to inputs only by the id property's value:
 * HubSpot promises no order, and its results need not carry the property. When some do not,
 * the unmatched inputs are read back by the id property (one `batch/read`); inputs still
 * without a call are rejected with HubSpot's message for them.
 */
async function collect<T>(http: HubSpotHttp, body: unknown, idProperty: string, inputs: readonly CallInput<T>[], into: UpsertOutcome<T>): Promise<void> {
  const { results, errors } = batchParts(body);
  const byValue = new Map(inputs.map((input) => [input.uniqueValue, input]));
  const ids = new Map<string, string>();
  let unlabelled = 0;
  for (const result of results) {
    const id = idOf(result);
    const value = propertyOf(result, idProperty);
    if (id !== null && value !== undefined && byValue.has(value)) ids.set(value, id);
    else if (id !== null) unlabelled += 1;
  }
  const unmatched = inputs.filter((input) => !ids.has(input.uniqueValue)).map((input) => input.uniqueValue);
  if (unlabelled > 0 && unmatched.length > 0) {
    for (const [value, id] of await readCallIdsByUnique(http, idProperty, unmatched)) if (byValue.has(value)) ids.set(value, id);
  }
  for (const input of inputs) {
    const hubspotId = ids.get(input.uniqueValue);
    if (hubspotId !== undefined) into.stored.push({ input, hubspotId });
    else
      into.rejected.push({
        input,
        reason: `hubspot: ${errorMessageFor([input.uniqueValue], errors)}`,
        conflict: errorCategoryFor([input.uniqueValue], errors) === 'CONFLICT',
      });
  }
}

/** Where HubSpot documents restoring a deleted call (there is no API for it). */
const RESTORE_GUIDE = 'knowledge.hubspot.com/records/restore-deleted-activity-in-a-record';

/**
 * Says why an upsert was refused when the cause is a call in HubSpot's recycling bin that still
 * holds the record's unique value: one archived by a person in HubSpot, or by callsync before it
 * moved values aside when archiving. HubSpot may keep an archived call's unique values and offers
 * no API to restore it, so only a person can: the reason names the call and the fix. One read of
 * the values HubSpot refused as a conflict (`batch/read?archived=true`); other refusals keep
 * HubSpot's message.
 */
export async function explainArchivedHolders<T>(
  http: HubSpotHttp,
  idProperty: string,
  rejected: UpsertOutcome<T>['rejected'],
): Promise<{ input: CallInput<T>; reason: string }[]> {
  const conflicts = rejected.filter((rejection) => rejection.conflict).map(({ input }) => input.uniqueValue);
  const holders = conflicts.length === 0 ? new Map<string, string>() : await readCallIdsByUnique(http, idProperty, conflicts, true);
  return rejected.map(({ input, reason, conflict }) => {
    const holder = conflict ? holders.get(input.uniqueValue) : undefined;
    if (holder === undefined) return { input, reason };
    return {
      input,
      reason: `hubspot: call ${holder} in HubSpot's recycling bin still holds ${idProperty} ${input.uniqueValue}; fix: restore that call in HubSpot (${RESTORE_GUIDE}), then run callsync dead-letters replay (${reason})`,
    };
  });
}
