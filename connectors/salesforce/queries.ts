import { chunks } from '../../src/base/chunks.js';
import { SalesforceError, salesforceProblem } from './errors.js';
import type { SalesforceHttp } from './client.js';

/** Salesforce counts a composite request once, whatever it holds: up to 25 subrequests, at most 5 of them queries. */
const QUERIES_PER_COMPOSITE = 5;
/**
 * Longest request URL sent (`/services/data/vNN.0/query?q=…`, encoded): Salesforce refuses a
 * request line and headers past 16,384 bytes. A longer query goes in a composite request's body.
 */
export const MAX_QUERY_URL = 15_000;

/** One query's rows, or Salesforce's refusal of it (`QUERY_TIMEOUT`, `MALFORMED_QUERY`, …). */
type QueryOutcome = { readonly rows: Record<string, unknown>[] } | { readonly refused: { readonly errorCode: string; readonly message: string } };

/**
 * Runs SOQL queries, up to five in one composite request (one API request for all of them; a
 * query too long for a URL goes that way even alone), then follows each result's
 * `nextRecordsUrl` until `done`. A query Salesforce refuses answers with its refusal instead of
 * throwing, so the caller can fall back for that query alone.
 */
export async function runQueries(http: SalesforceHttp, apiVersion: string, soql: readonly string[]): Promise<QueryOutcome[]> {
  const outcomes: QueryOutcome[] = [];
  for (const part of chunks(soql, QUERIES_PER_COMPOSITE)) {
    const alone = part.length === 1 && queryPath(apiVersion, part[0] ?? '').length <= MAX_QUERY_URL;
    const first = alone ? [await single(http, part[0] ?? '')] : await composite(http, apiVersion, part);
    for (const page of first) outcomes.push('refused' in page ? page : { rows: await rest(http, page) });
  }
  return outcomes;
}

interface Page {
  readonly records: Record<string, unknown>[];
  readonly next: string | undefined;
}

async function single(http: SalesforceHttp, soql: string): Promise<Page | Extract<QueryOutcome, { refused: unknown }>> {
  try {
    const { body } = await http.send('GET', `/query?q=${encodeURIComponent(soql)}`);
    return page(body);
  } catch (error) {
    if (error instanceof SalesforceError && error.problem === 'refused' && error.status === 400)
      return { refused: { errorCode: error.errorCode ?? 'UNKNOWN', message: error.message } };
    throw error;
  }
}

async function composite(http: SalesforceHttp, apiVersion: string, soql: readonly string[]): Promise<(Page | Extract<QueryOutcome, { refused: unknown }>)[]> {
  const compositeRequest = soql.map((query, index) => ({
    method: 'GET',
    url: queryPath(apiVersion, query),
    referenceId: `q${index}`,
  }));
  const { body } = await http.send('POST', '/composite', { allOrNone: false, compositeRequest });
  const answers = (body as { compositeResponse?: unknown } | undefined)?.compositeResponse;
  if (!Array.isArray(answers)) throw new SalesforceError('refused', 'salesforce: a composite answer without compositeResponse');
  return soql.map((_, index) => {
    const answer = answers.find((each: unknown) => (each as { referenceId?: unknown }).referenceId === `q${index}`) as
      { httpStatusCode?: unknown; body?: unknown } | undefined;
    if (answer?.httpStatusCode === 200) return page(answer.body);
    const status = typeof answer?.httpStatusCode === 'number' ? answer.httpStatusCode : 0;
    const { errorCode, message } = salesforceProblem(answer?.body);
    if (status >= 500 || status === 401 || status === 403) {
      throw new SalesforceError(
        status >= 500 ? 'transient' : 'refused',
        `salesforce: a query in a composite request answered ${status} ${errorCode ?? ''}: ${message ?? ''}`,
        { status, ...(errorCode === undefined ? {} : { errorCode }) },
      );
    }
    return { refused: { errorCode: errorCode ?? String(status), message: message ?? 'refused' } };
  });
}

function queryPath(apiVersion: string, soql: string): string {
  return `/services/data/v${apiVersion}/query?q=${encodeURIComponent(soql)}`;
}

async function rest(http: SalesforceHttp, first: Page): Promise<Record<string, unknown>[]> {
  const rows = [...first.records];
  let next = first.next;
  while (next !== undefined) {
    const { body } = await http.send('GET', next);
    const more = page(body);
    rows.push(...more.records);
    next = more.next;
  }
  return rows;
}

function page(body: unknown): Page {
  const value = (typeof body === 'object' && body !== null ? body : {}) as { records?: unknown; done?: unknown; nextRecordsUrl?: unknown };
  const records = Array.isArray(value.records) ? (value.records as Record<string, unknown>[]) : [];
  const next = value.done === false && typeof value.nextRecordsUrl === 'string' ? value.nextRecordsUrl : undefined;
  return { records, next };
}

/** A SOQL string literal: backslash and single quote escaped (SOQL and SOSL Reference, "Quoted String Escape Sequences"). */
export function soqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** sObject Collections requests in one composite request (Salesforce allows five). */
export const COLLECTIONS_PER_COMPOSITE = 5;

/** One sObject Collections answer: its status and body (a failed one too, when it came inside a composite request). */
interface CollectionAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Sends sObject Collections requests (`bodies`, each ≤ 200 records) to one resource: alone when
 * there is one, else up to five in one composite request, which Salesforce counts once. Answers
 * come in the order of `bodies`. A request sent alone that Salesforce refuses throws (as
 * {@link SalesforceHttp.send} does); one inside a composite request answers with its status.
 */
export async function sendCollections(
  http: SalesforceHttp,
  apiVersion: string,
  method: 'PATCH' | 'POST',
  path: string,
  bodies: readonly unknown[],
): Promise<CollectionAnswer[]> {
  const answers: CollectionAnswer[] = [];
  for (const group of chunks(bodies, COLLECTIONS_PER_COMPOSITE)) {
    if (group.length === 1) {
      const { status, body } = await http.send(method, path, group[0]);
      answers.push({ status, body });
      continue;
    }
    const compositeRequest = group.map((body, index) => ({ method, url: `/services/data/v${apiVersion}${path}`, referenceId: `c${index}`, body }));
    const { body } = await http.send('POST', '/composite', { allOrNone: false, compositeRequest });
    const parts = (body as { compositeResponse?: unknown } | undefined)?.compositeResponse;
    if (!Array.isArray(parts)) throw new SalesforceError('refused', 'salesforce: a composite answer without compositeResponse');
    for (const index of group.keys()) {
      const part = (parts as { referenceId?: unknown; httpStatusCode?: unknown; body?: unknown }[]).find((each) => each.referenceId === `c${index}`);
      answers.push({ status: typeof part?.httpStatusCode === 'number' ? part.httpStatusCode : 0, body: part?.body });
    }
  }
  return answers;
}
