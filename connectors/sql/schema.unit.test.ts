import { describe, expect, it } from 'vitest';
import { assertIdentifier, assertStreamTable } from './schema.js';

const sms = { stream: 'sms', table: 'sms', columns: [{ name: 'created_at', type: 'timestamp' as const }] };

describe('SQL identifiers', () => {
  it.each(['Calls', 'calls; drop table x', '1calls', 'a'.repeat(64), ''])('refuses identifier %j', (name) => {
    expect(() => assertIdentifier(name, 'table')).toThrow(/not a safe SQL identifier/);
  });

  it('refuses stream columns that shadow the fixed ones', () => {
    expect(() => assertStreamTable({ ...sms, columns: [{ name: 'raw', type: 'text' }] })).toThrow(/fixed column/);
    expect(() => assertStreamTable({ ...sms, columns: [{ name: 'deleted_at', type: 'timestamp' }] })).toThrow(/fixed column/);
    expect(() => assertStreamTable({ ...sms, table: 'sms"x' })).toThrow(/sms/);
  });
});
