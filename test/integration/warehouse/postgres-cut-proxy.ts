import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test closes as if the server had gone: every
 * connection is cut and new ones are refused. It forwards the client's messages whole and, when
 * cut, stops at a message boundary (after the data of a COPY already begun) and waits for the
 * server to answer every query and sync it forwarded (each ends in ReadyForQuery) before closing. So a commit the server made is always
 * acknowledged to the client, and a transaction not committed is rolled back: what the client
 * counts as stored is exactly what the database holds.
 */
export interface PostgresCutProxy {
  readonly port: number;
  /** Cuts every connection once the server has answered what it was sent, and refuses new ones. */
  cut(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  readonly server: Socket;
  /** Requests forwarded that the server has not answered yet (the start-up, each query and sync). */
  pending: number;
}

/** CopyData ('d'), CopyDone ('c') and CopyFail ('f'): the rest of a COPY … FROM STDIN already forwarded. */
const COPY_IN_MESSAGES: ReadonlySet<number> = new Set([0x64, 0x63, 0x66]);

/** Splits complete frontend messages off `buffer`: the start-up message has no type byte, the rest do. */
function takeMessages(buffer: Buffer, started: boolean): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  let first = !started;
  for (;;) {
    const header = first ? 4 : 5;
    if (buffer.length - offset < header) break;
    const length = first ? buffer.readInt32BE(offset) : 1 + buffer.readInt32BE(offset + 1);
    if (buffer.length - offset < length) break;
    messages.push(buffer.subarray(offset, offset + length));
    offset += length;
    first = false;
  }
  return { messages, rest: buffer.subarray(offset) };
}

/** Counts ReadyForQuery ('Z') messages in the server's stream, carrying a partial message over. */
function readyCounter(): (chunk: Buffer) => number {
  let rest = Buffer.alloc(0);
  return (chunk) => {
    let buffer = Buffer.concat([rest, chunk]);
    let ready = 0;
    while (buffer.length >= 5) {
      const length = 1 + buffer.readInt32BE(1);
      if (buffer.length < length) break;
      if (buffer[0] === 0x5a) ready += 1;
      buffer = buffer.subarray(length);
    }
    rest = buffer;
    return ready;
  };
}

export async function startPostgresCutProxy(target: { host: string; port: number }): Promise<PostgresCutProxy> {
  const links = new Set<Link>();
  let cutting = false;
  let settled: (() => void) | undefined;
  const check = (): void => {
    if (!cutting || [...links].some((link) => link.pending > 0)) return;
    for (const link of links) {
      link.client.destroy();
      link.server.destroy();
    }
    links.clear();
    settled?.();
  };
  const server: Server = createServer((client) => {
    if (cutting) return void client.destroy();
    const upstream = connect(target.port, target.host);
    const link: Link = { client, server: upstream, pending: 0 };
    links.add(link);
    let buffered: Buffer = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      const { messages, rest } = takeMessages(Buffer.concat([buffered, chunk]), started);
      buffered = rest;
      for (const message of messages) {
        // A COPY the server has begun waits for its data and CopyDone before it answers: holding them
        // back would keep its ReadyForQuery, and so the cut, waiting forever.
        if (cutting && !COPY_IN_MESSAGES.has(message[0] ?? 0)) return;
        // The start-up message, a simple query ('Q') and a sync ('S') are each answered by one ReadyForQuery.
        if (!started || message[0] === 0x51 || message[0] === 0x53) link.pending += 1;
        started = true;
        upstream.write(message);
      }
    });
    const count = readyCounter();
    upstream.on('data', (chunk: Buffer) => {
      link.pending -= count(chunk);
      client.write(chunk);
      check();
    });
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      links.delete(link);
      check();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    cut: async () => {
      const closed = new Promise<void>((done) => server.close(() => done()));
      const drained = new Promise<void>((done) => (settled = done));
      cutting = true;
      check();
      await Promise.all([drained, closed]);
    },
  };
}
