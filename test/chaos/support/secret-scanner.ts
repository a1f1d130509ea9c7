import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Simulator } from '../../../simulator/index.js';

const SCANS_PATH = join(import.meta.dirname, '../../../test-output/chaos-secret-scans.jsonl');

/** What one test file's scanner saw. A leak names the output and the secret's first 4 characters only. */
export interface ScanSummary {
  readonly file: string;
  readonly secrets: number;
  readonly outputs: number;
  readonly bytes: number;
  readonly leaks: readonly string[];
}

/**
 * Collects every output a scenario sees (CLI output, worker logs, HTTP answers, stored rows) and
 * checks each against every secret value the scenario used. Outputs are scanned as they arrive,
 * so secrets must be registered first.
 */
export class SecretScanner {
  readonly #secrets = new Set<string>();
  readonly #leaks: string[] = [];
  #outputs = 0;
  #bytes = 0;

  addSecrets(...values: readonly string[]): void {
    for (const value of values) if (value.length >= 4) this.#secrets.add(value);
  }

  /** Every credential of every simulated business: API key, v2 token, owner and viewer passwords. */
  addSimulator(simulator: Simulator): void {
    for (const business of simulator.businesses) this.addSecrets(business.apiKey, business.v2Token, business.password, business.viewerPassword);
  }

  collect(label: string, text: string): void {
    if (this.#secrets.size === 0) throw new Error('register the secrets before collecting outputs');
    this.#outputs += 1;
    this.#bytes += text.length;
    for (const secret of this.#secrets) if (text.includes(secret)) this.#leaks.push(`${label} contains ${secret.slice(0, 4)}…`);
  }

  /** Every row of every table of a SQLite sink (records with `raw`, dead_letters, sync_state). */
  collectSqlite(label: string, databasePath: string): void {
    const database = new Database(databasePath, { readonly: true, timeout: 20_000 });
    try {
      const tables = database.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
      for (const { name } of tables) {
        const rows = database.prepare(`select * from "${name}"`).all();
        this.collect(`${label} table ${name}`, JSON.stringify(rows));
      }
    } finally {
      database.close();
    }
  }

  /** Fetches operator routes of a `run` worker and collects the answers. */
  async collectHttp(label: string, baseUrl: string, paths: readonly string[] = ['/status', '/metrics', '/', '/readyz', '/healthz']): Promise<void> {
    for (const path of paths) {
      const response = await fetch(`${baseUrl}${path}`);
      this.collect(`${label} GET ${path}`, `${JSON.stringify([...response.headers])}\n${await response.text()}`);
    }
  }

  summary(file: string): ScanSummary {
    return { file, secrets: this.#secrets.size, outputs: this.#outputs, bytes: this.#bytes, leaks: [...this.#leaks] };
  }

  /** Appends the summary for the run's final report. */
  record(file: string): ScanSummary {
    const summary = this.summary(file);
    mkdirSync(dirname(SCANS_PATH), { recursive: true });
    appendFileSync(SCANS_PATH, `${JSON.stringify(summary)}\n`);
    return summary;
  }
}

export function readScans(): ScanSummary[] {
  try {
    return readFileSync(SCANS_PATH, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as ScanSummary);
  } catch {
    return [];
  }
}

export function clearScans(): void {
  rmSync(SCANS_PATH, { force: true });
}
