/**
 * The query that reads the current mirror back from a stream's files: for each record, its newest
 * written row, with `deleted_at` set when a deletion came after it; exactly the rows and columns
 * of the SQL sinks' table. `files` is a DuckDB file list or glob, e.g.
 * `'lake/stream=calls/*\/*\/*.parquet'`. docs/sinks/parquet.md gives it (and its BigQuery and
 * Snowflake forms); the tests read the sink back through it.
 */
export function mirrorQuery(files: string): string {
  return `WITH versions AS (
  SELECT * FROM read_parquet(${files}, union_by_name = true)
),
written AS (
  SELECT * EXCLUDE (deleted_at) FROM versions
  WHERE deleted_at IS NULL
  QUALIFY row_number() OVER (PARTITION BY business_id, id ORDER BY version DESC) = 1
),
deletions AS (
  SELECT business_id, id, max(version) AS deleted_version, arg_max(deleted_at, version) AS deleted_at
  FROM versions
  WHERE deleted_at IS NOT NULL
  GROUP BY business_id, id
)
SELECT written.*, CASE WHEN deletions.deleted_version > written.version THEN deletions.deleted_at END AS deleted_at
FROM written LEFT JOIN deletions USING (business_id, id)`;
}
