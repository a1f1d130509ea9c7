import { z } from 'zod';
import { genericColumns } from '../normalize/columns.js';
import { RESERVED_COLUMNS } from '../sink/sink.js';
import { builtinStreams } from '../source/streams/builtin-streams.js';

/** Names of the reporting views the SQL sinks create (migration `005_report_views`); no table may take them. */
export const VIEW_NAMES: readonly string[] = ['calls_daily', 'calls_by_tracking_number'];

const FIELD_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

const declaredColumnSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL identifier (^[a-z_][a-z0-9_]{0,62}$)')
    .refine((name) => !RESERVED_COLUMNS.has(name), { error: `is reserved (every table has ${[...RESERVED_COLUMNS].join(', ')})` }),
  from: z
    .string()
    .regex(FIELD_PATH, 'expected a dotted path of field names (letters, digits, _ and -), e.g. tracking_source or tracking.source')
    .transform((path) => path.split('.')),
  type: z.enum(['text', 'integer', 'number', 'boolean', 'timestamp'], { error: 'expected one of text, integer, number, boolean, timestamp' }),
});

/** `columns:` — per table (stream name), extra columns read from each record's `raw`. */
export const columnsSchema = z.record(z.string(), z.array(declaredColumnSchema)).default({});

/** The columns each table already has, by the name `columns:` uses for it. v2_calls is stored in `calls`. */
function builtInColumnsByTable(): Map<string, readonly string[]> {
  const tables = new Map<string, readonly string[]>();
  for (const stream of builtinStreams.values())
    tables.set(
      stream.table.table,
      stream.table.columns.map((column) => column.name),
    );
  return tables;
}

interface Checked {
  readonly streams: readonly { readonly name: string }[];
  readonly columns: Readonly<Record<string, readonly { readonly name: string }[]>>;
}

type Issue = { path: (string | number)[]; message: string };

/** Unknown tables and names that clash with a table's own columns or repeat; paths as `columns.calls[1].name`. */
export function checkDeclaredColumns(config: Checked, addIssue: (issue: Issue) => void): void {
  const tables = builtInColumnsByTable();
  for (const stream of config.streams)
    tables.set(
      stream.name,
      genericColumns.map((column) => column.name),
    );
  for (const [table, columns] of Object.entries(config.columns)) {
    const own = tables.get(table);
    if (own === undefined) {
      const hint = builtinStreams.get(table)?.table.table;
      const message =
        hint === undefined
          ? `unknown stream "${table}" (expected one of ${[...tables.keys()].join(', ')})`
          : `"${table}" is stored in the ${hint} table: declare its columns under ${hint}`;
      addIssue({ path: ['columns', table], message });
      continue;
    }
    const seen = new Map<string, number>();
    columns.forEach((column, index) => {
      const first = seen.get(column.name);
      if (own.includes(column.name))
        addIssue({ path: ['columns', table, index, 'name'], message: `"${column.name}" is a built-in column of ${table}; pick another name` });
      else if (first !== undefined)
        addIssue({ path: ['columns', table, index, 'name'], message: `"${column.name}" is declared twice (also columns.${table}[${first}])` });
      seen.set(column.name, first ?? index);
    });
  }
}
