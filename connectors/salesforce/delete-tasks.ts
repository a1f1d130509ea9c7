import { chunks } from '../../src/base/chunks.js';
import type { SalesforceConfig } from './config.js';
import type { SalesforceHttp } from './client.js';
import { runQueries, soqlString } from './queries.js';
import { upsertTasks } from './upsert.js';

/** Ids per SOQL `IN` and per sObject Collections delete. */
const CHUNK = 200;

/**
 * Applies upstream deletions to the Tasks of these external ids, as `onDelete` says: `delete`
 * finds their Ids (SOQL, up to five queries in one composite request) and deletes them through
 * sObject Collections (to the recycle bin, restorable for 15 days); `mark` sets `deletedField`
 * through the same upsert the writes use, so no Id is needed. Returns the Tasks affected.
 */
export async function deleteTasks(
  http: SalesforceHttp,
  config: SalesforceConfig,
  externalIds: readonly string[],
  sleep: (ms: number) => Promise<void>,
): Promise<number> {
  if (config.onDelete === 'mark') {
    const inputs = externalIds.map((externalId) => ({
      externalId,
      fields: { [config.externalIdField]: externalId, [config.deletedField]: true },
      item: externalId,
    }));
    // A Task that does not exist is created marked: harmless, and it keeps the record's trace.
    const outcome = await upsertTasks(inputs, { http, apiVersion: config.apiVersion, externalIdField: config.externalIdField, retry: config.retry, sleep });
    return outcome.stored.length;
  }
  const queries = chunks(externalIds, CHUNK).map((part) => `SELECT Id FROM Task WHERE ${config.externalIdField} IN (${part.map(soqlString).join(', ')})`);
  const ids: string[] = [];
  for (const outcome of await runQueries(http, config.apiVersion, queries)) {
    if ('refused' in outcome) throw new Error(`salesforce: finding the Tasks to delete was refused: ${outcome.refused.errorCode}: ${outcome.refused.message}`);
    for (const row of outcome.rows) if (typeof row.Id === 'string') ids.push(row.Id);
  }
  let deleted = 0;
  for (const part of chunks(ids, CHUNK)) {
    const { body } = await http.send('DELETE', `/composite/sobjects?ids=${part.join(',')}&allOrNone=false`);
    if (Array.isArray(body)) deleted += (body as { success?: unknown }[]).filter((result) => result.success === true).length;
  }
  return deleted;
}
