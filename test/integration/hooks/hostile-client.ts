import { createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import pino, { type Logger } from 'pino';
import { startHookServer, type HookServer } from '../../../src/entry/hooks/hook-server.js';
import { createHookReceiver, type DeliveryOutcome, type HookBusiness, type HookReceiver, type HookSettings } from '../../../src/entry/hooks/receiver.js';

/** The receiver's settings with the config's defaults (docs/operations.md "Webhooks"), paths by business. */
export const DEFAULTS: HookSettings = {
  path: '/hooks',
  auth: 'hmac',
  signature: { header: 'x-webhook-signature', algorithm: 'sha256', encoding: 'hex', prefix: '', timestampHeader: 'x-webhook-timestamp', toleranceMs: 300_000 },
  tokenHeader: 'authorization',
  streamMap: {},
  maxBodyBytes: 1_048_576,
  rateLimit: { requests: 10_000, perMs: 1_000 },
  maxConnections: 256,
  maxConnectionsPerClient: 64,
  maxBytesInFlight: 16_777_216,
  bodyTimeoutMs: 10_000,
};

/** Signed by hand (docs/operations.md "Webhooks"), not with the receiver's own signer. */
export function signed(secret: string, body: string, atSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = createHmac('sha256', secret).update(`${atSeconds}.${body}`).digest('hex');
  return { 'content-type': 'application/json', 'x-webhook-signature': signature, 'x-webhook-timestamp': String(atSeconds) };
}

/** Headers that pass every check before the body (a current time, a digest of the right form) but sign nothing. */
export function wellFormedForgery(): Record<string, string> {
  return { 'content-type': 'application/json', 'x-webhook-signature': 'f'.repeat(64), 'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
}

export interface TestReceiver {
  readonly url: string;
  readonly receiver: HookReceiver;
  readonly outcomes: DeliveryOutcome[];
  readonly triggered: string[];
  close(): Promise<void>;
}

/** A receiver on a port of its own. */
export async function startReceiver(
  settings: Partial<HookSettings>,
  businesses: ReadonlyMap<string, HookBusiness>,
  extra: { readonly logger?: Logger; readonly firstSighting?: (business: string, id: string, ttlMs: number) => Promise<boolean> } = {},
): Promise<TestReceiver> {
  const outcomes: DeliveryOutcome[] = [];
  const triggered: string[] = [];
  const logger = extra.logger ?? pino({ level: 'silent' });
  const receiver = createHookReceiver({
    settings: { ...DEFAULTS, ...settings },
    businesses,
    trigger: (business) => {
      triggered.push(business);
      return Promise.resolve();
    },
    onDelivery: (outcome) => outcomes.push(outcome),
    ...(extra.firstSighting === undefined ? {} : { firstSighting: extra.firstSighting }),
    logger,
  });
  const server: HookServer = await startHookServer({ host: '127.0.0.1', port: 0, receiver, logger });
  return { url: server.url, receiver, outcomes, triggered, close: () => server.close() };
}

/** One raw HTTP/1.1 exchange, so a test can send headers, part of a body, or stall, as an attacker does. */
export interface RawDelivery {
  readonly socket: Socket;
  /** Everything received, once the server closed the connection (or it broke: `error` says how). */
  readonly ended: Promise<{ readonly received: string; readonly error: string | undefined }>;
  /** The first bytes of the answer ('' when the connection closed without one). */
  readonly answer: Promise<string>;
}

/** Opens a connection from `localAddress` and writes a POST's head; the body is the caller's to write, or not. */
export function openDelivery(url: string, path: string, headers: Readonly<Record<string, string>>, localAddress = '127.0.0.1'): Promise<RawDelivery> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => {
      const head = Object.entries({ host: `${hostname}:${port}`, ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      let received = '';
      let error: string | undefined;
      const answer = new Promise<string>((done) => {
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          done(received);
        });
        socket.once('close', () => done(received));
      });
      socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      const ended = new Promise<{ received: string; error: string | undefined }>((done) => socket.once('close', () => done({ received, error })));
      resolve({ socket, answer, ended });
    });
    socket.once('error', reject);
  });
}

/** The status code of a raw answer, or 0 when none came. */
export function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}

/** A whole delivery over a raw connection: its status. */
export async function deliver(url: string, path: string, body: string, headers: Readonly<Record<string, string>>, localAddress?: string): Promise<number> {
  const delivery = await openDelivery(url, path, { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' }, localAddress);
  delivery.socket.write(body);
  return statusOf(await delivery.answer);
}
