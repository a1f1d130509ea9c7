import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

/** The machine's one PostgreSQL cluster (`/etc/postgresql/<version>/main`), driven by pg_ctlcluster. */
function cluster(action: 'start' | 'stop' | 'status'): void {
  const version = readdirSync('/etc/postgresql')[0];
  if (version === undefined) throw new Error('no PostgreSQL cluster in /etc/postgresql');
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action], { stdio: 'ignore' });
}

export function stopPostgres(): void {
  cluster('stop');
}

export function startPostgres(): void {
  cluster('start');
}

/** Starts the cluster unless it runs (status exits non-zero when it is down). */
export function ensurePostgresRunning(): void {
  try {
    cluster('status');
  } catch {
    startPostgres();
  }
}
