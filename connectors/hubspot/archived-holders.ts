import type { HubSpotHttp } from './http-client.js';
import { readCallIdsByUnique } from './read-by-unique.js';
import type { CallInput, UpsertOutcome } from './upsert.js';

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
