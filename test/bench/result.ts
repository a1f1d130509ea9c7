/** One line of the benchmark table; every figure returns one or more. */
export interface BenchRow {
  readonly figure: string;
  /** What was measured, formatted for the table (a number with its unit, or a short note). */
  readonly measured: string;
  /** The target as written in the brief, e.g. "≥ 0.97"; empty when the row is informational. */
  readonly target: string;
  /** The raw baseline run side by side, when the figure has one. */
  readonly baseline?: string;
  /** `ok`, `below target`, `info`, `not available yet` or `error`. */
  readonly status: BenchStatus;
  /** Numbers behind the row, written to bench-results.json as they are. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export type BenchStatus = 'ok' | 'below target' | 'info' | 'not available yet' | 'error';

/** Options every figure gets from the command line. */
export interface BenchContext {
  /** `--quick`: the CI size, within two minutes in all. */
  readonly quick: boolean;
  /** Scratch directory for databases and config files, removed at the end. */
  readonly tmpDir: string;
  readonly postgresUrl: string;
  readonly redisUrl: string;
  /** Progress lines for the person watching (stderr), never part of the table. */
  readonly log: (line: string) => void;
}

export function verdict(met: boolean): BenchStatus {
  return met ? 'ok' : 'below target';
}

export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : String(value);
}

export function perSecond(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')} rec/s`;
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
