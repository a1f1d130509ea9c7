import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';

/**
 * A Redis of this test's own (never the shared one on 6379), without persistence: stopping it
 * loses every key, like a Redis restarted without a volume.
 */
export class PrivateRedis {
  readonly port: number;
  #child: ChildProcess | undefined;

  constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: 'ignore',
    });
    this.#child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        return;
      } catch (error) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`private redis-server on ${this.port} did not start: ${(error as Error).message}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        client.disconnect();
      }
    }
  }

  /** SIGTERM, as an orchestrator stops it; resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}
