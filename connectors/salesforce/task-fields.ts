import type { SalesforceConfig } from './config.js';
import { SalesforceError } from './errors.js';
import type { SalesforceHttp } from './client.js';

interface DescribedField {
  readonly name: string;
  readonly type?: string;
  readonly externalId?: boolean;
  readonly unique?: boolean;
  readonly createable?: boolean;
  readonly updateable?: boolean;
}

/** What `describe` says about the Task fields that the writes need to know. */
export interface TaskFieldFacts {
  /** Fields Salesforce sets only on create (`createable`, not `updateable`: `tasksubtype`), in lower case; an update that carries one is refused. */
  readonly createOnly: ReadonlySet<string>;
}

/**
 * Checks at start, with one `describe` of Task, that the org has what the README's one-time setup
 * creates: the external id field exists, is an External ID and is Unique (else two workers could
 * create two Tasks for one call), and every other configured field exists. Throws one line
 * naming the config key, the field and the setup step. Answers which fields are create-only.
 */
export async function checkTaskFields(http: SalesforceHttp, config: SalesforceConfig): Promise<TaskFieldFacts> {
  const { body } = await http.send('GET', '/sobjects/Task/describe');
  const list = (body as { fields?: unknown } | undefined)?.fields;
  const fields = new Map((Array.isArray(list) ? (list as DescribedField[]) : []).map((field) => [field.name.toLowerCase(), field]));
  const id = fields.get(config.externalIdField.toLowerCase());
  const step = 'connectors/salesforce/README.md, one-time org setup, step 3';
  if (id === undefined)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not a field of Task; create it (Text(255), External ID, Unique) or correct the name (${step})`,
      {
        fix: `create the Task field ${config.externalIdField} (Text(255), External ID, Unique), or set sink.externalIdField to the field's API name (${step})`,
      },
    );
  if (id.externalId !== true)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not marked External ID on Task; tick "External ID" on the field (${step})`,
      { fix: `tick "External ID" on the Task field that sink.externalIdField names (${step})` },
    );
  if (id.unique !== true)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not Unique on Task; tick "Unique" on the field, or retries can create two Tasks for one call (${step})`,
      { fix: `tick "Unique" on the Task field that sink.externalIdField names (${step})` },
    );
  const others: [string, string | null][] = [
    ['sink.recordField', config.recordField],
    ['sink.recordingUrlField', config.recordingUrlField],
    ['sink.deletedField', config.onDelete === 'mark' ? config.deletedField : null],
    ...Object.entries(config.mapping?.fields ?? {}).map(([column, field]): [string, string] => [`sink.mapping.fields.${column}`, field]),
  ];
  for (const [key, name] of others) {
    if (name !== null && !fields.has(name.toLowerCase()))
      throw new SalesforceError('setup', `salesforce: ${key} ${name} is not a field of Task; create it or correct the name (${step})`, {
        fix: `create the Task field ${name}, or correct ${key} (${step})`,
      });
  }
  const createOnly = [...fields.values()].filter((field) => field.createable === true && field.updateable === false).map((field) => field.name.toLowerCase());
  return { createOnly: new Set(createOnly) };
}
