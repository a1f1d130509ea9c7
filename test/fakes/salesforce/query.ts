import { randomBytes } from 'node:crypto';
import type { Reply } from '../json-service.js';
import { apiError } from './reply.js';
import { matches, parseSoql, parseSosl, QuerySyntaxError, selectFields } from './soql.js';
import { valueOf, type FakeOrgStore } from './store.js';

/**
 * Reads ("Query", "Query More Results", "Search", "sObject Describe"):
 * - `GET …/query?q=SOQL` answers `{ totalSize, done, records, nextRecordsUrl? }`; a result larger
 *   than the batch size comes in batches, the rest at `nextRecordsUrl` (`…/query/<locator>-<n>`).
 *   SOQL reads the database: a record is visible the moment it is written. A statement longer than
 *   100,000 characters is refused (`MALFORMED_QUERY`); a long one fits only in a composite
 *   subrequest's body, since a request line and headers past 16,384 bytes get 431/414.
 * - `GET …/search?q=SOSL` answers `{ searchRecords: [...] }` from the search index, which sees a
 *   record only `indexLagMs` after it was written ("records are indexed asynchronously; a newly
 *   created record may not be searchable for up to 15 minutes"). `IN PHONE FIELDS` matches phone
 *   fields by their digits, however they were typed.
 * - `GET …/sobjects/Task/describe` lists the Task fields with `externalId`, `unique`, `idLookup`,
 *   `createable` and `updateable`.
 */

const LOCATOR_PREFIX = '01gFAKE';
/** "SOQL and SOSL Limits for Search Queries": a SOQL statement is at most 100,000 characters by default. */
const MAX_SOQL_LENGTH = 100_000;

export class FakeQueries {
  readonly #cursors = new Map<string, Record<string, unknown>[]>();

  constructor(
    readonly store: FakeOrgStore,
    readonly batchSize: number,
    readonly phoneFields: readonly string[],
    /** Refuse SOQL `LIKE` patterns that begin with a wildcard, as a large org's non-selective query can time out. */
    readonly refuseLeadingWildcard: boolean,
  ) {}

  query(version: string, text: string): Reply {
    if (text.length > MAX_SOQL_LENGTH) return apiError(400, 'MALFORMED_QUERY', `SOQL statements cannot be longer than ${MAX_SOQL_LENGTH} characters`);
    let parsed;
    try {
      parsed = parseSoql(text);
    } catch (error) {
      if (error instanceof QuerySyntaxError) return apiError(400, 'MALFORMED_QUERY', `unexpected token: ${error.message}`);
      throw error;
    }
    if (this.refuseLeadingWildcard && /LIKE\s+'%/i.test(text)) return apiError(400, 'QUERY_TIMEOUT', 'Your query request was running for too long.');
    const object = parsed.object;
    if (!['Task', 'Contact', 'Lead'].includes(object)) return apiError(400, 'INVALID_TYPE', `sObject type '${object}' is not supported.`);
    let records = this.store.live(object).map((record) => this.store.view(record));
    if (parsed.where !== undefined) {
      const where = parsed.where;
      records = records.filter((record) => matches(record, where));
    }
    if (parsed.orderBy !== undefined) {
      const { field, descending } = parsed.orderBy;
      records.sort((a, b) => compare(a[field], b[field]) * (descending ? -1 : 1));
    }
    if (parsed.limit !== undefined) records = records.slice(0, parsed.limit);
    const rows = records.map((record) => ({
      attributes: { type: object, url: `/services/data/${version}/sobjects/${object}/${String(record.Id)}` },
      ...selectFields(record, parsed.fields),
    }));
    return this.#page(version, `${LOCATOR_PREFIX}${randomBytes(6).toString('hex')}`, rows, 0);
  }

  more(version: string, locator: string): Reply {
    const match = /^(.+)-(\d+)$/.exec(locator);
    const rows = match === null ? undefined : this.#cursors.get(match[1] ?? '');
    if (match === null || rows === undefined) return apiError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    return this.#page(version, match[1] ?? '', rows, Number(match[2]));
  }

  search(text: string, now: number): Reply {
    let parsed;
    try {
      parsed = parseSosl(text);
    } catch (error) {
      if (error instanceof QuerySyntaxError) return apiError(400, 'MALFORMED_SEARCH', `No search term found. ${error.message}`);
      throw error;
    }
    const searchRecords: Record<string, unknown>[] = [];
    for (const { object, fields } of parsed.returning) {
      for (const record of this.store.live(object)) {
        if (record.indexedAt > now) continue;
        const phones = this.phoneFields.map((field) => valueOf(record, field)).filter((value): value is string => typeof value === 'string');
        const hit = parsed.terms.some((term) => phones.some((phone) => phoneHit(phone, term)));
        if (hit)
          searchRecords.push({ attributes: { type: object, url: `/sobjects/${object}/${record.Id}` }, ...selectFields(this.store.view(record), fields) });
      }
    }
    return { status: 200, body: { searchRecords } };
  }

  describeTask(): Reply {
    const fields = [...this.store.taskFields.values()].map((field) => ({
      name: field.name,
      type: field.type,
      length: field.length ?? 0,
      custom: field.custom === true,
      externalId: field.externalId === true,
      unique: field.unique === true,
      idLookup: field.type === 'id' || field.externalId === true,
      updateable: field.type !== 'id' && field.updateable !== false,
      createable: field.type !== 'id',
      ...(field.picklist === undefined ? {} : { picklistValues: field.picklist.map((value) => ({ value, label: value, active: true })) }),
    }));
    return { status: 200, body: { name: 'Task', label: 'Task', custom: false, createable: true, updateable: true, deletable: true, fields } };
  }

  #page(version: string, locator: string, rows: Record<string, unknown>[], offset: number): Reply {
    const batch = rows.slice(offset, offset + this.batchSize);
    const next = offset + batch.length;
    const done = next >= rows.length;
    if (done) this.#cursors.delete(locator);
    else this.#cursors.set(locator, rows);
    return {
      status: 200,
      body: { totalSize: rows.length, done, records: batch, ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${locator}-${next}` }) },
    };
  }
}

function phoneHit(phone: string, term: string): boolean {
  const have = phone.replace(/\D/g, '');
  const want = term.replace(/\D/g, '');
  if (have.length < 7 || want.length < 7) return false;
  return have.endsWith(want) || want.endsWith(have);
}

function compare(a: unknown, b: unknown): number {
  const left = typeof a === 'string' || typeof a === 'number' ? String(a) : '';
  const right = typeof b === 'string' || typeof b === 'number' ? String(b) : '';
  return left < right ? -1 : left > right ? 1 : 0;
}
