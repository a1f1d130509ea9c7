import type { HubSpotHttp } from './http-client.js';

/** One call → contact pair, by HubSpot object ids. */
export interface CallContactPair {
  readonly callId: string;
  readonly contactId: string;
}

/** Inputs per request; HubSpot accepts more on this endpoint, 100 keeps requests small. */
const ASSOCIATION_BATCH = 100;

/**
 * Creates the default (unlabelled) call → contact association for each pair with
 * `POST /crm/v4/associations/calls/contacts/batch/associate/default`. Associating an already
 * associated pair changes nothing, so replays are harmless. Returns the number of pairs sent.
 */
export async function associateCallsWithContacts(http: HubSpotHttp, pairs: readonly CallContactPair[]): Promise<number> {
  for (let start = 0; start < pairs.length; start += ASSOCIATION_BATCH) {
    const inputs = pairs.slice(start, start + ASSOCIATION_BATCH).map((pair) => ({ from: { id: pair.callId }, to: { id: pair.contactId } }));
    await http.send('POST', '/crm/v4/associations/calls/contacts/batch/associate/default', { inputs });
  }
  return pairs.length;
}
