import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_TEST_CREDENTIALS, startS3Server, type TestS3Server } from '../../test/support/s3-server.js';
import { objectStoreConfigSchema, openObjectStore, type ObjectStore, type ObjectStoreConfig } from './index.js';

const MiB = 1024 * 1024;

/** A stream of `size` bytes of `fill`, given out in 64 KiB chunks; it fails after `failAfter` bytes when given. */
function bytes(size: number, fill: number, failAfter?: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && sent >= failAfter) {
        this.destroy(new Error('the download broke off'));
        return;
      }
      const chunk = Math.min(64 * 1024, size - sent);
      if (chunk === 0) return void this.push(null);
      sent += chunk;
      this.push(Buffer.alloc(chunk, fill));
    },
  });
}

function describeStore(name: string, open: () => Promise<{ config: ObjectStoreConfig; cleanup: () => Promise<void> }>): void {
  describe(`object store: ${name}`, () => {
    let store: ObjectStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      const opened = await open();
      store = await openObjectStore(opened.config);
      cleanup = opened.cleanup;
    });

    afterAll(async () => {
      await store.close();
      await cleanup();
    });

    it('puts, heads, reads, lists in key order and deletes', async () => {
      await store.put('b/2.txt', new TextEncoder().encode('two'));
      await store.put('a/1.txt', Readable.from(['o', 'ne']));
      expect(await store.head('a/1.txt')).toEqual({ key: 'a/1.txt', size: 3 });
      expect(await store.head('a/none.txt')).toBeUndefined();
      expect(await text(await store.read('b/2.txt'))).toBe('two');
      const listed: string[] = [];
      for await (const object of store.list('')) listed.push(object.key);
      expect(listed).toEqual(['a/1.txt', 'b/2.txt']);
      const underA: string[] = [];
      for await (const object of store.list('a/')) underA.push(object.key);
      expect(underA).toEqual(['a/1.txt']);
      await store.put('a/1.txt', new TextEncoder().encode('replaced'));
      expect(await text(await store.read('a/1.txt'))).toBe('replaced');
      await store.delete('a/1.txt');
      await store.delete('a/1.txt');
      expect(await store.head('a/1.txt')).toBeUndefined();
      await expect(store.read('a/1.txt')).rejects.toThrow();
    });

    it('takes a stream larger than a part whole (S3: a multipart upload) and never shows a partial one', async () => {
      const size = 11 * MiB + 123;
      expect(await store.put('big/recording.wav', bytes(size, 7))).toEqual({ key: 'big/recording.wav', size });
      const read = await store.read('big/recording.wav');
      let length = 0;
      let wrong = 0;
      for await (const chunk of read as AsyncIterable<Buffer>) {
        length += chunk.byteLength;
        wrong += chunk.filter((byte) => byte !== 7).length;
      }
      expect({ length, wrong }).toEqual({ length: size, wrong: 0 });
      // A body that breaks off after two parts: the key keeps what it had, nothing partial.
      await expect(store.put('big/recording.wav', bytes(size, 9, 10 * MiB + 5))).rejects.toThrow(/broke off/);
      await expect(store.put('big/other.wav', bytes(size, 9, 6 * MiB))).rejects.toThrow(/broke off/);
      expect(await store.head('big/recording.wav')).toEqual({ key: 'big/recording.wav', size });
      expect(await store.head('big/other.wav')).toBeUndefined();
    });

    it('stores a companion asked for once the body is whole, and none when the body breaks off', async () => {
      let seen = -1;
      let streamed = 0;
      const body = bytes(2 * MiB, 5).pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            streamed += chunk.byteLength;
            done(null, chunk);
          },
        }),
      );
      const companion = () => {
        seen = streamed;
        return { key: 'pair/one.wav.sha256', bytes: new TextEncoder().encode(`${streamed}`), contentType: 'text/plain' };
      };
      expect(await store.put('pair/one.wav', body, { companion })).toEqual({ key: 'pair/one.wav', size: 2 * MiB });
      expect(seen).toBe(2 * MiB);
      expect(await text(await store.read('pair/one.wav.sha256'))).toBe(`${2 * MiB}`);
      await expect(store.put('pair/two.wav', bytes(2 * MiB, 5, MiB), { companion })).rejects.toThrow(/broke off/);
      expect(await store.head('pair/two.wav')).toBeUndefined();
      const listed: string[] = [];
      for await (const object of store.list('pair/')) listed.push(object.key);
      expect(listed).toEqual(['pair/one.wav', 'pair/one.wav.sha256']);
    });
  });
}

describeStore('local folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'callsync-object-folder-'));
  return {
    config: objectStoreConfigSchema.parse({ type: 'folder', path: join(dir, 'store') }),
    cleanup: async () => {
      // Nothing is left in staging after a failed put either.
      expect(await readdir(join(dir, 'store', '_callsync_tmp'))).toEqual([]);
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeStore('S3-compatible (s3rver)', async () => {
  const server: TestS3Server = await startS3Server();
  await server.createBucket('objects');
  return {
    config: objectStoreConfigSchema.parse({
      type: 's3',
      bucket: 'objects',
      prefix: 'archive',
      endpoint: server.endpoint,
      forcePathStyle: true,
      ...S3_TEST_CREDENTIALS,
      partSizeBytes: 5 * MiB,
    }),
    cleanup: () => server.close(),
  };
});
