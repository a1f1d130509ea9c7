import { describe, expect, it } from 'vitest';
import { formatTable } from './text-table.js';

describe('formatTable', () => {
  it('aligns text left and numbers right under a rule', () => {
    const table = formatTable(
      ['business', 'records'],
      [
        ['acme', 5],
        ['globex-longer', 12345],
      ],
    );
    expect(table.split('\n')).toEqual(['business       records', '-------------  -------', 'acme                 5', 'globex-longer    12345']);
  });

  it('prints only the header and rule when there are no rows', () => {
    expect(formatTable(['a', 'b'], []).split('\n')).toEqual(['a  b', '-  -']);
  });
});
