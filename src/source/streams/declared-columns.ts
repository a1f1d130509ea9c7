import { withDeclaredColumns, type DeclaredColumn } from '../../normalize/index.js';
import type { StreamDescriptor } from './stream-descriptor.js';

/**
 * A stream with the config's `columns:` for its table (`calls` also covers `v2_calls`): the
 * table gains the columns, with their paths so a SQL sink can fill stored rows from `raw`, and
 * the normalizer reads them from every record.
 */
export function withDeclaredTableColumns(stream: StreamDescriptor, byTable: Readonly<Record<string, readonly DeclaredColumn[]>>): StreamDescriptor {
  const declared = byTable[stream.table.table] ?? [];
  if (declared.length === 0) return stream;
  return {
    ...stream,
    table: { ...stream.table, columns: [...stream.table.columns, ...declared] },
    normalize: withDeclaredColumns(stream.normalize, declared),
  };
}
