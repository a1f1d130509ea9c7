import type { SalesforceConfig } from './config.js';
import { SalesforceError } from './errors.js';
import type { SalesforceHttp } from './http.js';

interface DescribedField {
  readonly name: string;
  readonly type?: string;
  readonly externalId?: boolean;
  readonly unique?: boolean;
}

/**
 * Checks at start, with one `describe` of Task, that the org has what the README's one-time setup
 * creates: the external id field exists, is an External ID and is Unique (else two workers could
 * create two Tasks for one call), and every other configured field exists. Throws one line
 * naming the config key, the field and the setup step.
 */
export async function checkTaskFields(http: SalesforceHttp, config: SalesforceConfig): Promise<void> {
  const { body } = await http.send('GET', '/sobjects/Task/describe');
  const list = (body as { fields?: unknown } | undefined)?.fields;
  const fields = new Map((Array.isArray(list) ? (list as DescribedField[]) : []).map((field) => [field.name.toLowerCase(), field]));
  const id = fields.get(config.externalIdField.toLowerCase());
  const step = 'README: one-time org setup, step 3';
  if (id === undefined)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not a field of Task; create it (Text(255), External ID, Unique) or correct the name (${step})`,
    );
  if (id.externalId !== true)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not marked External ID on Task; tick "External ID" on the field (${step})`,
    );
  if (id.unique !== true)
    throw new SalesforceError(
      'setup',
      `salesforce: sink.externalIdField ${config.externalIdField} is not Unique on Task; tick "Unique" on the field, or retries can create two Tasks for one call (${step})`,
    );
  const others: [string, string | null][] = [
    ['sink.recordField', config.recordField],
    ['sink.recordingUrlField', config.recordingUrlField],
    ['sink.deletedField', config.onDelete === 'mark' ? config.deletedField : null],
    ...Object.entries(config.mapping?.fields ?? {}).map(([column, field]): [string, string] => [`sink.mapping.fields.${column}`, field]),
  ];
  for (const [key, name] of others) {
    if (name !== null && !fields.has(name.toLowerCase()))
      throw new SalesforceError('setup', `salesforce: ${key} ${name} is not a field of Task; create it or correct the name (${step})`);
  }
}
