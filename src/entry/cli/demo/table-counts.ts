import Database from 'better-sqlite3';

interface TableCount {
  readonly table: string;
  readonly business: string;
  readonly rows: number;
}

/** Rows per table and business, read straight from the file as a warehouse user would. */
export function tableCounts(databasePath: string, tables: readonly string[]): TableCount[] {
  const database = new Database(databasePath, { readonly: true });
  try {
    return tables.flatMap((table) =>
      database
        .prepare<[], { business: string; rows: number }>(
          `select business_id as business, count(*) as rows from "${table}" group by business_id order by business_id`,
        )
        .all()
        .map((row) => ({ table, business: row.business, rows: row.rows })),
    );
  } finally {
    database.close();
  }
}
