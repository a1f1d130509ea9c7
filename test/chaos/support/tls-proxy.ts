import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

export interface TlsProxy {
  /** `https://127.0.0.1:<port>`: the same paths as the target. */
  readonly url: string;
  /** The self-signed certificate (PEM), to be trusted through `upstream.caFile`. */
  readonly certPath: string;
  /** TLS handshakes a client gave up (it did not trust the certificate). */
  rejectedHandshakes(): number;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 made by openssl, valid one day. */
function selfSigned(directory: string): { keyPath: string; certPath: string } {
  const keyPath = join(directory, 'key.pem');
  const certPath = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { keyPath, certPath };
}

/** An https front for an http server (the simulator), as a self-run instance behind its own CA would be. */
export async function startTlsProxy(targetBaseUrl: string, directory: string): Promise<TlsProxy> {
  const { keyPath, certPath } = selfSigned(directory);
  const target = new URL(targetBaseUrl);
  let rejected = 0;
  const server: Server = createServer({ key: readFileSync(keyPath), cert: readFileSync(certPath) }, (incoming, outgoing) => {
    const forward = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  server.on('tlsClientError', () => (rejected += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    certPath,
    rejectedHandshakes: () => rejected,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
