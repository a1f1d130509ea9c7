import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort } from './free-port.js';

/** s3rver's one built-in key pair: any other key id is refused (InvalidAccessKeyId). */
export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', accessKeySecret: 'S3RVER' } as const;

/** An S3-compatible server of the test's own, in process, storing under a temporary folder. */
export interface TestS3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Where s3rver keeps the objects (`<bucket>/<key>._S3rver_object`). */
  readonly directory: string;
  /** Creates a bucket (S3 names: 3-63 characters, a-z, 0-9, `.`, `-`). */
  createBucket(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port with a fresh temporary folder. It checks the access key
 * id but not v4 signatures: a wrong secret is not refused, an unknown key id is.
 */
export async function startS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'callsync-s3-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, directory, silent: true });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    async createBucket(name) {
      await server.store.putBucket(name);
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
