import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The image `npm run test:container` built; the tests never build one themselves. */
export function imageUnderTest(): string {
  const image = process.env.CALLSYNC_CONTAINER_IMAGE;
  if (image === undefined || image === '') {
    throw new Error('CALLSYNC_CONTAINER_IMAGE is not set: run `npm run test:container`, which builds the image and then runs these tests');
  }
  return image;
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** One podman command (runc, as the script's containers.conf also says); never rejects on a non-zero exit. */
export function podman(args: readonly string[], timeoutMs = 120_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile('podman', ['--runtime', 'runc', ...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

export async function podmanOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await podman(args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(0, 500)}`);
  return result.stdout;
}

/**
 * The worker as the Dockerfile's CMD runs it: host network, the config mounted where CMD reads it,
 * and the image's HEALTHCHECK told the status port (`CALLSYNC_HEALTH_PORT`).
 */
export async function runWorker(name: string, image: string, configPath: string, statusPort: number): Promise<void> {
  await podmanOk([
    'run',
    '--detach',
    '--name',
    name,
    '--network',
    'host',
    '--env',
    `CALLSYNC_HEALTH_PORT=${statusPort}`,
    '--volume',
    `${configPath}:/config/callsync.yaml:ro`,
    image,
  ]);
}

/** The container's JSON log lines (pino); other lines are kept as `{ text }`. */
export async function workerLogs(name: string): Promise<Array<Record<string, unknown>>> {
  const { stdout, stderr } = await podman(['logs', name]);
  return `${stdout}\n${stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { text: line };
      }
    });
}

export async function inspectField(name: string, template: string): Promise<string> {
  return (await podmanOk(['inspect', '--format', template, name])).trim();
}

/** Uid of the container's main process as the host's kernel sees it (no user namespace here). */
export async function mainProcessUid(name: string): Promise<number> {
  const pid = await inspectField(name, '{{.State.Pid}}');
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  if (line === undefined) throw new Error(`no Uid line in /proc/${pid}/status`);
  return Number(line.split(/\s+/)[1]);
}
