import { backoffDelayMs } from '../../src/http-policy/index.js';
import type { SalesforceRetry } from './config.js';
import { SalesforceError, salesforceProblem } from './errors.js';
import type { SalesforceHttp } from './http.js';
import type { TaskFieldValue } from './mapping.js';

/** Records per sObject Collections upsert (Salesforce's limit). */
export const UPSERT_MAX = 200;

/**
 * Per-record `statusCode`s worth another attempt: a row another transaction holds, or a
 * request Salesforce gave up on; the rest describe the record itself and become dead letters.
 */
export const TRANSIENT_RECORD_CODES: ReadonlySet<string> = new Set(['UNABLE_TO_LOCK_ROW', 'REQUEST_RUNNING_TOO_LONG', 'SERVER_UNAVAILABLE', 'ALL_OR_NONE_OPERATION_ROLLED_BACK']);

export interface TaskInput<T> {
  readonly externalId: string;
  readonly fields: Readonly<Record<string, TaskFieldValue>>;
  readonly item: T;
}

export interface UpsertOutcome<T> {
  readonly stored: TaskInput<T>[];
  readonly rejected: { readonly input: TaskInput<T>; readonly reason: string }[];
}

export interface UpsertOptions {
  readonly http: SalesforceHttp;
  readonly externalIdField: string;
  readonly retry: SalesforceRetry;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/**
 * Upserts Tasks by the external id field through sObject Collections (`PATCH
 * /composite/sobjects/Task/<field>`, 200 a request, `allOrNone: false`), reading each result in
 * request order. Records that failed for a transient reason (`UNABLE_TO_LOCK_ROW`) go again in
 * the next round, up to `retry.maxAttempts` rounds; the others are rejected with Salesforce's
 * `statusCode` and message. A refusal of the whole request (a field the org lacks) throws.
 */
export async function upsertTasks<T>(inputs: readonly TaskInput<T>[], options: UpsertOptions): Promise<UpsertOutcome<T>> {
  const outcome: UpsertOutcome<T> = { stored: [], rejected: [] };
  let pending = [...inputs];
  for (let round = 1; pending.length > 0; round += 1) {
    const again: { input: TaskInput<T>; reason: string }[] = [];
    for (let start = 0; start < pending.length; start += UPSERT_MAX) {
      const chunk = pending.slice(start, start + UPSERT_MAX);
      const results = await upsertChunk(chunk, options);
      for (const [index, input] of chunk.entries()) {
        const result = results[index];
        if (result?.success === true) {
          outcome.stored.push(input);
          continue;
        }
        const error = result?.errors?.[0];
        const reason = `salesforce: ${error?.statusCode ?? 'NO_RESULT'}: ${error?.message ?? 'no result for this record'}`;
        if (error !== undefined && TRANSIENT_RECORD_CODES.has(error.statusCode)) again.push({ input, reason });
        else outcome.rejected.push({ input, reason });
      }
    }
    if (again.length === 0) break;
    if (round >= options.retry.maxAttempts) {
      outcome.rejected.push(...again.map(({ input, reason }) => ({ input, reason: `${reason} (after ${round} attempts)` })));
      break;
    }
    await options.sleep(backoffDelayMs(round, options.retry, options.random));
    pending = again.map(({ input }) => input);
  }
  return outcome;
}

interface RecordResult {
  readonly success?: boolean;
  readonly errors?: readonly { readonly statusCode: string; readonly message?: string }[];
}

async function upsertChunk<T>(chunk: readonly TaskInput<T>[], options: UpsertOptions): Promise<readonly RecordResult[]> {
  const records = chunk.map((input) => ({ attributes: { type: 'Task' }, ...input.fields }));
  let answer;
  try {
    answer = await options.http.send('PATCH', `/composite/sobjects/Task/${encodeURIComponent(options.externalIdField)}`, { allOrNone: false, records });
  } catch (error) {
    if (error instanceof SalesforceError && error.kind === 'refused' && (error.errorCode === 'INVALID_FIELD' || error.errorCode === 'NOT_FOUND')) {
      throw new SalesforceError('setup', `${error.message} (check sink.mapping.fields, sink.recordingUrlField, sink.recordField and sink.externalIdField against the Task fields; README: one-time org setup)`, { ...(error.errorCode === undefined ? {} : { errorCode: error.errorCode }) }, { cause: error });
    }
    throw error;
  }
  if (answer.status === 300) {
    throw new SalesforceError('setup', `salesforce: sink.externalIdField ${options.externalIdField} holds the same value on several Tasks (300 Multiple Choices); make the field Unique (README: one-time org setup, step 3)`, { status: 300 });
  }
  if (!Array.isArray(answer.body)) {
    const { errorCode, message } = salesforceProblem(answer.body);
    throw new SalesforceError('refused', `salesforce: the upsert answered without results${errorCode === undefined ? '' : ` (${errorCode}: ${message ?? ''})`}`);
  }
  return answer.body as RecordResult[];
}
