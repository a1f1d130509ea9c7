/** A plain-text table for terminals and logs: left-aligned text, right-aligned numbers. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((row) => row.map((cell) => String(cell)));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'));
  const line = (values: readonly string[]): string =>
    values
      .map((value, column) => {
        const width = widths[column] ?? value.length;
        return numeric[column] ? value.padStart(width) : value.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(headers), rule, ...cells.map(line)].join('\n');
}
