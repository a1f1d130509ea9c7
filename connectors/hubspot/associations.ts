import { chunks } from '../../src/base/chunks.js';
import { backoffDelayMs, type BackoffOptions } from '../../src/http/index.js';
import { batchParts, errorMessageFor } from './batch-answer.js';
import type { HubSpotHttp } from './client.js';
import type { Clock } from './budget.js';

/** One call → contact pair, by HubSpot object ids. */
export interface CallContactPair {
  readonly callId: string;
  readonly contactId: string;
}

/** A pair HubSpot would not associate, with its last message. */
export interface FailedPair extends CallContactPair {
  readonly reason: string;
}

interface AssociateOptions {
  readonly http: HubSpotHttp;
  readonly clock: Clock;
  /** Rounds per pair including the first; a pair that fails them all is returned as failed. */
  readonly rounds: number;
  readonly backoff: BackoffOptions;
  readonly random?: () => number;
}

/** Inputs per request; HubSpot takes more on this endpoint, 100 keeps answers small. */
const ASSOCIATION_BATCH = 100;
const PATH = '/crm/v4/associations/calls/contacts/batch/associate/default';

/**
 * Creates the default (unlabelled) call → contact association of each pair with HubSpot's v4
 * batch associate-default, and reads the answer: a pair without a result failed (HubSpot answers
 * such a batch with `errors[]`/`numErrors`, whatever the status). Failed pairs are sent again,
 * after a backoff, up to `rounds` times; the ones still failing are returned with HubSpot's
 * message. Associating an associated pair changes nothing, so replays are harmless.
 */
export async function associateCallsWithContacts(pairs: readonly CallContactPair[], options: AssociateOptions): Promise<FailedPair[]> {
  let pending: FailedPair[] = pairs.map((pair) => ({ ...pair, reason: '' }));
  for (let round = 1; round <= options.rounds && pending.length > 0; round += 1) {
    if (round > 1) await options.clock.sleep(backoffDelayMs(round - 1, options.backoff, options.random));
    const failed: FailedPair[] = [];
    for (const part of chunks(pending, ASSOCIATION_BATCH)) failed.push(...(await associateChunk(options.http, part)));
    pending = failed;
  }
  return pending;
}

async function associateChunk(http: HubSpotHttp, pairs: readonly CallContactPair[]): Promise<FailedPair[]> {
  const inputs = pairs.map((pair) => ({ from: { id: pair.callId }, to: { id: pair.contactId } }));
  const { body } = await http.send('POST', PATH, { inputs }, 'associations');
  const { results, errors } = batchParts(body);
  const done = new Set(results.map((result) => `${endId(result, 'from')}>${endId(result, 'to')}`));
  return pairs
    .filter((pair) => !done.has(`${pair.callId}>${pair.contactId}`))
    .map((pair) => ({ ...pair, reason: errorMessageFor([pair.callId, pair.contactId], errors) }));
}

function endId(result: unknown, end: 'from' | 'to'): string {
  const side = typeof result === 'object' && result !== null ? (result as Record<string, unknown>)[end] : undefined;
  const id = typeof side === 'object' && side !== null ? (side as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}
