import { chunks } from '../../src/base/chunks.js';
import { backoffDelayMs } from '../../src/http/index.js';
import type { SalesforceRetry } from './config.js';
import { SalesforceError, salesforceProblem } from './errors.js';
import type { SalesforceHttp } from './client.js';
import { COLLECTIONS_PER_COMPOSITE, sendCollections } from './queries.js';
import type { TaskFieldValue } from './mapping.js';

/** Records per sObject Collections upsert (Salesforce's limit). */
const UPSERT_MAX = 200;

/**
 * Per-record `statusCode`s worth another attempt: a row another transaction holds, or a
 * request Salesforce gave up on; the rest describe the record itself and become dead letters.
 */
const TRANSIENT_RECORD_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_LOCK_ROW',
  'REQUEST_RUNNING_TOO_LONG',
  'SERVER_UNAVAILABLE',
  'ALL_OR_NONE_OPERATION_ROLLED_BACK',
]);

export interface TaskInput<T> {
  readonly externalId: string;
  readonly fields: Readonly<Record<string, TaskFieldValue>>;
  readonly item: T;
}

interface UpsertOutcome<T> {
  readonly stored: TaskInput<T>[];
  readonly rejected: { readonly input: TaskInput<T>; readonly reason: string }[];
}

interface UpsertOptions {
  readonly http: SalesforceHttp;
  readonly apiVersion: string;
  readonly externalIdField: string;
  readonly retry: SalesforceRetry;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /**
   * Fields Salesforce sets only on create (`tasksubtype`, lower case). An upsert that matches an existing Task
   * is an update, which Salesforce refuses for such a field (`INVALID_FIELD_FOR_INSERT_UPDATE`);
   * that record goes again at once without them. @defaultValue none
   */
  readonly createOnly?: ReadonlySet<string>;
}

/**
 * Upserts Tasks by the external id field through sObject Collections (`PATCH
 * /composite/sobjects/Task/<field>`, 200 a request, `allOrNone: false`; up to five of them in one
 * composite request, counted once), reading each result in request order. A record that exists
 * already and was refused only for carrying create-only fields goes again at once without them.
 * Records that failed for a transient reason (`UNABLE_TO_LOCK_ROW`) go again in the next round,
 * up to `retry.maxAttempts` rounds; the others are rejected with Salesforce's `statusCode` and
 * message. A refusal of the whole request (a field the org lacks) throws.
 */
export async function upsertTasks<T>(inputs: readonly TaskInput<T>[], options: UpsertOptions): Promise<UpsertOutcome<T>> {
  const outcome: UpsertOutcome<T> = { stored: [], rejected: [] };
  let pending = [...inputs];
  for (let round = 1; pending.length > 0; round += 1) {
    const again: { input: TaskInput<T>; reason: string }[] = [];
    // Without its create-only fields a record cannot be refused for them again, so this ends.
    for (let sending = pending; sending.length > 0;) {
      const updates: TaskInput<T>[] = [];
      for (const group of chunks(chunks(sending, UPSERT_MAX), COLLECTIONS_PER_COMPOSITE)) {
        const answers = await upsertGroup(group, options);
        for (const [which, chunk] of group.entries()) {
          const results = answers[which] ?? [];
          for (const [index, input] of chunk.entries()) {
            const result = results[index];
            if (result?.success === true) {
              outcome.stored.push(input);
              continue;
            }
            const error = result?.errors?.[0];
            const reason = `salesforce: ${error?.statusCode ?? 'NO_RESULT'}: ${error?.message ?? 'no result for this record'}`;
            const createOnly = createOnlyRefused(error, input, options.createOnly);
            if (createOnly !== undefined) updates.push({ ...input, fields: without(input.fields, createOnly) });
            else if (error !== undefined && TRANSIENT_RECORD_CODES.has(error.statusCode)) again.push({ input, reason });
            else outcome.rejected.push({ input, reason });
          }
        }
      }
      sending = updates;
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

interface RecordError {
  readonly statusCode: string;
  readonly message?: string;
  readonly fields?: readonly string[];
}

interface RecordResult {
  readonly success?: boolean;
  readonly errors?: readonly RecordError[];
}

/**
 * The fields to leave out when Salesforce refused an update only for create-only fields this
 * record carries (`INVALID_FIELD_FOR_INSERT_UPDATE`, "Unable to create/update fields: …"); else
 * undefined, so a field refused for another reason (no edit access) stays a dead letter.
 */
function createOnlyRefused(error: RecordError | undefined, input: TaskInput<unknown>, createOnly: ReadonlySet<string> | undefined): string[] | undefined {
  if (error?.statusCode !== 'INVALID_FIELD_FOR_INSERT_UPDATE' || createOnly === undefined || createOnly.size === 0) return undefined;
  const named = error.fields !== undefined && error.fields.length > 0 ? error.fields : /fields: ([^.]+)\./.exec(error.message ?? '')?.[1]?.split(/,\s*/);
  if (named === undefined || named.length === 0) return undefined;
  const sent = Object.keys(input.fields);
  const fields = named.map((name) => sent.find((field) => field.toLowerCase() === name.trim().toLowerCase()));
  if (fields.some((field) => field === undefined || !createOnly.has(field.toLowerCase()))) return undefined;
  return fields as string[];
}

function without(fields: Readonly<Record<string, TaskFieldValue>>, names: readonly string[]): Record<string, TaskFieldValue> {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));
}

/** The results of each chunk's upsert, in order; a refusal of a whole chunk throws, naming the config keys when it is a missing field. */
async function upsertGroup<T>(group: readonly (readonly TaskInput<T>[])[], options: UpsertOptions): Promise<(readonly RecordResult[])[]> {
  const path = `/composite/sobjects/Task/${encodeURIComponent(options.externalIdField)}`;
  const bodies = group.map((chunk) => ({ allOrNone: false, records: chunk.map((input) => ({ attributes: { type: 'Task' }, ...input.fields })) }));
  let answers;
  try {
    answers = await sendCollections(options.http, options.apiVersion, 'PATCH', path, bodies);
  } catch (error) {
    throw setupProblem(error) ?? error;
  }
  return answers.map(({ status, body }) => {
    if (status === 200 || status === 300) return results(status, body, options);
    const { errorCode, message } = salesforceProblem(body);
    const failure = new SalesforceError(
      status >= 500 || status === 0 ? 'transient' : 'refused',
      `salesforce PATCH ${path} (in a composite request) answered ${status}${errorCode === undefined ? '' : ` ${errorCode}`}${message === undefined ? '' : `: ${message}`}`,
      { status, ...(errorCode === undefined ? {} : { errorCode }) },
    );
    throw setupProblem(failure) ?? failure;
  });
}

function results(status: number, body: unknown, options: UpsertOptions): readonly RecordResult[] {
  if (status === 300) {
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${options.externalIdField} holds the same value on several Tasks (300 Multiple Choices); make the field Unique (connectors/salesforce/README.md, one-time org setup, step 3)`,
      {
        status: 300,
        fix: 'merge the duplicate Tasks, then tick "Unique" on the Task field that sink.externalIdField names (connectors/salesforce/README.md, one-time org setup, step 3)',
      },
    );
  }
  if (!Array.isArray(body)) {
    const { errorCode, message } = salesforceProblem(body);
    throw new SalesforceError(
      'refused',
      `salesforce: the upsert answered without results${errorCode === undefined ? '' : ` (${errorCode}: ${message ?? ''})`}`,
    );
  }
  return body as RecordResult[];
}

/** A whole upsert refused for a field the org lacks: a setup problem, named by its config keys. */
function setupProblem(error: unknown): SalesforceError | undefined {
  if (!(error instanceof SalesforceError) || error.problem !== 'refused' || (error.errorCode !== 'INVALID_FIELD' && error.errorCode !== 'NOT_FOUND'))
    return undefined;
  return new SalesforceError(
    'setup',
    `${error.message} (check sink.mapping.fields, sink.recordingUrlField, sink.recordField and sink.externalIdField against the Task fields; connectors/salesforce/README.md, one-time org setup)`,
    { ...(error.errorCode === undefined ? {} : { errorCode: error.errorCode }) },
    { cause: error },
  );
}
