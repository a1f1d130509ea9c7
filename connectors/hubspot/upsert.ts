import { isHubSpotError, type HubSpotError } from './errors.js';
import type { HubSpotHttp } from './http-client.js';

/** One call to upsert, keyed by its unique property value. */
export interface CallInput<T> {
  readonly uniqueValue: string;
  readonly properties: Readonly<Record<string, string>>;
  /** The caller's own data, handed back in the outcome. */
  readonly item: T;
}

export interface UpsertOutcome<T> {
  readonly stored: { readonly input: CallInput<T>; readonly hubspotId: string; readonly created: boolean }[];
  /** Inputs HubSpot refused, with HubSpot's message. */
  readonly rejected: { readonly input: CallInput<T>; readonly reason: string }[];
}

/** HubSpot's batch size limit for CRM object batch endpoints. */
export const HUBSPOT_BATCH_LIMIT = 100;

/**
 * Upserts calls by the unique property (`POST /crm/v3/objects/calls/batch/upsert`), at most 100
 * distinct ids per request. A 207 keeps the good results and rejects the inputs HubSpot names.
 * A whole-batch 400/409 is bisected until the records at fault stand alone; they are rejected
 * with HubSpot's message and the rest is stored. When every record of a batch fails with one
 * and the same message the fault is not in the records (a property or scope problem): the
 * error is thrown instead, so nothing is dead-lettered and the checkpoint stays.
 */
export async function upsertCalls<T>(http: HubSpotHttp, idProperty: string, inputs: readonly CallInput<T>[]): Promise<UpsertOutcome<T>> {
  const outcome: UpsertOutcome<T> = { stored: [], rejected: [] };
  for (let start = 0; start < inputs.length; start += HUBSPOT_BATCH_LIMIT) {
    const chunk = inputs.slice(start, start + HUBSPOT_BATCH_LIMIT);
    const part: UpsertOutcome<T> = { stored: [], rejected: [] };
    const firstError = await upsertBisecting(http, idProperty, chunk, part);
    const reasons = new Set(part.rejected.map((rejection) => rejection.reason));
    if (firstError !== undefined && chunk.length > 1 && part.stored.length === 0 && reasons.size === 1) throw firstError;
    outcome.stored.push(...part.stored);
    outcome.rejected.push(...part.rejected);
  }
  return outcome;
}

async function upsertBisecting<T>(http: HubSpotHttp, idProperty: string, inputs: readonly CallInput<T>[], into: UpsertOutcome<T>): Promise<HubSpotError | undefined> {
  if (inputs.length === 0) return undefined;
  try {
    const { body } = await http.send('POST', '/crm/v3/objects/calls/batch/upsert', {
      inputs: inputs.map((input) => ({ idProperty, id: input.uniqueValue, properties: input.properties })),
    });
    collect(body, idProperty, inputs, into);
    return undefined;
  } catch (error) {
    if (!isHubSpotError(error) || !error.batchRejection) throw error;
    if (inputs.length === 1 && inputs[0] !== undefined) {
      into.rejected.push({ input: inputs[0], reason: `hubspot: ${error.hubspotMessage ?? error.message}` });
      return error;
    }
    const middle = Math.ceil(inputs.length / 2);
    await upsertBisecting(http, idProperty, inputs.slice(0, middle), into);
    await upsertBisecting(http, idProperty, inputs.slice(middle), into);
    return error;
  }
}

interface ResultObject {
  id?: unknown;
  new?: unknown;
  properties?: Record<string, unknown>;
}

/** Reads a 200/207 batch answer: matched results are stored; inputs without a result are rejected. */
function collect<T>(body: unknown, idProperty: string, inputs: readonly CallInput<T>[], into: UpsertOutcome<T>): void {
  const { results = [], errors = [] } = (typeof body === 'object' && body !== null ? body : {}) as { results?: ResultObject[]; errors?: unknown[] };
  const byValue = new Map(inputs.map((input) => [input.uniqueValue, input]));
  const matched = new Set<string>();
  for (const [index, result] of results.entries()) {
    const value = result.properties?.[idProperty];
    // Without the property in the answer, HubSpot's results are in input order.
    const input = typeof value === 'string' ? byValue.get(value) : errors.length === 0 ? inputs[index] : undefined;
    if (input === undefined || (typeof result.id !== 'string' && typeof result.id !== 'number')) continue;
    matched.add(input.uniqueValue);
    into.stored.push({ input, hubspotId: String(result.id), created: result.new === true });
  }
  for (const input of inputs) {
    if (matched.has(input.uniqueValue)) continue;
    into.rejected.push({ input, reason: `hubspot: ${errorFor(input.uniqueValue, errors)}` });
  }
}

function errorFor(uniqueValue: string, errors: readonly unknown[]): string {
  const messages = errors.map((error) => {
    const { message, context } = (typeof error === 'object' && error !== null ? error : {}) as { message?: unknown; context?: unknown };
    return { message: typeof message === 'string' ? message : 'rejected without a message', context: JSON.stringify(context ?? null) };
  });
  const named = messages.find((entry) => entry.context.includes(JSON.stringify(uniqueValue)));
  if (named !== undefined) return named.message;
  if (messages.length === 0) return 'no result returned for this input';
  return [...new Set(messages.map((entry) => entry.message))].join('; ');
}
