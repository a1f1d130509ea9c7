import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** Whether `port` (and its cluster bus port, +10000) can be bound on loopback now. */
async function free(port: number): Promise<boolean> {
  for (const p of [port, port + 10_000]) {
    const server = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(p, '127.0.0.1', () => resolve(true));
    });
    if (!ok) return false;
    server.close();
    await once(server, 'close');
  }
  return true;
}

/** `count` consecutive free ports from a random start in 7100-7999 (bus ports 17100-17999). */
async function freePorts(count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const start = 7100 + Math.floor(Math.random() * (900 - count));
    const ports = Array.from({ length: count }, (_, i) => start + i);
    let all = true;
    for (const port of ports) if (!(await free(port))) all = false;
    if (all) return ports;
  }
  throw new Error('no free loopback ports for a Redis Cluster in 7100-7999');
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`redis cluster: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ask<T>(port: number, question: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await question(client);
  } finally {
    client.disconnect();
  }
}

/** One line of CLUSTER NODES. */
interface ClusterNode {
  readonly port: number;
  readonly master: boolean;
  readonly failed: boolean;
}

/**
 * A real Redis Cluster on loopback for one test: `masters` masters with `replicasPerMaster`
 * replicas each, from the machine's `redis-server` and `redis-cli --cluster create`, without
 * persistence, in a temp dir removed by `stop()`.
 */
export class RedisCluster {
  readonly #dir = mkdtempSync(join(tmpdir(), 'callsync-cluster-'));
  readonly #children = new Map<number, ChildProcess>();
  #ports: number[] = [];

  constructor(
    private readonly masters = 3,
    private readonly replicasPerMaster = 0,
  ) {}

  /** Every node's `host:port`, what `redis.cluster` lists. */
  get nodes(): string[] {
    return this.#ports.map((port) => `127.0.0.1:${port}`);
  }

  get ports(): readonly number[] {
    return this.#ports;
  }

  async start(): Promise<void> {
    this.#ports = await freePorts(this.masters * (1 + this.replicasPerMaster));
    for (const port of this.#ports) await this.startNode(port);
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...this.nodes, '--cluster-replicas', String(this.replicasPerMaster), '--cluster-yes'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await this.waitHealthy();
  }

  /** Starts (or restarts, with its node file: it rejoins the cluster) the node on `port`. */
  async startNode(port: number): Promise<void> {
    const dir = join(this.#dir, String(port));
    mkdirSync(dir, { recursive: true });
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
        '--repl-diskless-sync-delay',
        '0',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    this.#children.set(port, child);
    await until(`redis-server on ${port}`, async () => ((await ask(port, (c) => c.ping())) === 'PONG' ? true : undefined), 10_000);
  }

  /**
   * Every live node says `cluster_state:ok` and sees every slot served, and every replica has synced
   * with its master: a replica that never synced has no data to fail over with, so a master killed
   * before then stays down (on a quiet machine a test reached its kill within the first seconds).
   */
  async waitHealthy(timeoutMs = 60_000): Promise<void> {
    const live = this.#ports.filter((port) => this.#children.has(port));
    await until(
      'cluster_state:ok and every replica in sync on every node',
      async () => {
        for (const port of live) {
          const info = await ask(port, (c) => c.cluster('INFO'));
          if (!String(info).includes('cluster_state:ok') || !String(info).includes('cluster_slots_ok:16384')) return undefined;
          const replication = String(await ask(port, (c) => c.info('replication')));
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return undefined;
        }
        return true;
      },
      timeoutMs,
    );
  }

  /** The cluster's view from a live node. */
  async clusterNodes(): Promise<ClusterNode[]> {
    const port = [...this.#children.keys()][0];
    if (port === undefined) throw new Error('no live node');
    const text = String(await ask(port, (c) => c.cluster('NODES')));
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [, address = '', flags = ''] = line.split(' ');
        return { port: Number(address.split('@')[0]?.split(':')[1]), master: flags.includes('master'), failed: flags.includes('fail') };
      });
  }

  /** The port of the master serving `slot` now. */
  async masterOfSlot(slot: number): Promise<number> {
    const port = [...this.#children.keys()][0];
    if (port === undefined) throw new Error('no live node');
    const slots = await ask(port, (c) => c.cluster('SLOTS'));
    const master = slots.find(([from, to]) => slot >= from && slot <= to)?.[2];
    if (master === undefined) throw new Error(`slot ${slot} is not served`);
    return master[1];
  }

  async keySlot(key: string): Promise<number> {
    const port = [...this.#children.keys()][0];
    if (port === undefined) throw new Error('no live node');
    return Number(await ask(port, (c) => c.cluster('KEYSLOT', key)));
  }

  /** Keys matching `pattern` on every live master (SCAN is per node in a cluster). */
  async keys(pattern: string): Promise<string[]> {
    const found: string[] = [];
    for (const node of await this.clusterNodes()) {
      if (!node.master || node.failed || !this.#children.has(node.port)) continue;
      found.push(
        ...(await ask(node.port, async (c) => {
          const keys: string[] = [];
          let cursor = '0';
          do {
            const [next, batch] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
            keys.push(...batch);
            cursor = next;
          } while (cursor !== '0');
          return keys;
        })),
      );
    }
    return found;
  }

  /** SIGKILL of the node on `port`; resolves once the process is gone. */
  async kill(port: number): Promise<void> {
    const child = this.#children.get(port);
    this.#children.delete(port);
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Kills every node and removes their directory. */
  async stop(): Promise<void> {
    await Promise.all([...this.#children.keys()].map((port) => this.kill(port)));
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
