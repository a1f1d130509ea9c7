import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, opendir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FolderStoreConfig } from './config.js';
import { ObjectStoreError } from './errors.js';
import type { ObjectStore, PutBody, PutOptions, StoredObject } from './store.js';

/**
 * Where a body is written before it is renamed into place: inside the folder, so the rename stays
 * on one file system (atomic), and under a `_`-prefixed name that Hive-style readers skip.
 */
export const FOLDER_STAGING = '_callsync_tmp';

/**
 * Objects as files under one folder. A put writes a temporary file in the folder's staging
 * directory, syncs it, renames it over the key and syncs the directory: a reader sees the old file
 * or the whole new one, and a crash leaves at most a stray `.tmp` file in staging, never a partial
 * file under a key.
 */
export class FolderStore implements ObjectStore {
  readonly root: string;
  readonly stagingDirectory: string;
  readonly #staging: string;
  /** Directories known to exist: a put into one skips its `mkdir`. */
  readonly #made = new Set<string>();

  private constructor(root: string) {
    this.root = root;
    this.#staging = join(root, FOLDER_STAGING);
    this.stagingDirectory = this.#staging;
  }

  static async open(config: FolderStoreConfig): Promise<FolderStore> {
    const store = new FolderStore(resolve(config.path));
    await mkdir(store.#staging, { recursive: true });
    return store;
  }

  /** The local path the file of `key` has (a test or a reader may open it). */
  pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (key === '' || key.startsWith('/') || !path.startsWith(this.root + sep) || path.startsWith(this.#staging + sep))
      throw new ObjectStoreError(`key "${key}" is outside the folder`, 'OBJECT_KEY_INVALID');
    return path;
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredObject> {
    const path = this.pathOf(key);
    const folder = dirname(path);
    if (!this.#made.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.#made.add(folder);
    }
    // A file the caller prepared in staging is renamed from where it is: no copy, no second rename.
    const prepared = !(body instanceof Uint8Array || body instanceof Readable) && body.consume === true && dirname(resolve(body.path)) === this.#staging;
    const temporary = prepared ? resolve(body.path) : join(this.#staging, `${randomUUID()}.tmp`);
    let size: number;
    let beside: { readonly path: string; readonly temporary: string } | undefined;
    try {
      if (body instanceof Uint8Array || body instanceof Readable) {
        await pipeline(body instanceof Readable ? body : Readable.from([body]), createWriteStream(temporary));
      } else if (!prepared && (body.consume !== true || !(await moved(body.path, temporary)))) {
        await copyFile(body.path, temporary);
        if (body.consume === true) await unlink(body.path);
      }
      size = await syncFile(temporary);
      const companion = options.companion?.();
      if (companion !== undefined) {
        beside = { path: this.pathOf(companion.key), temporary: join(this.#staging, `${randomUUID()}.tmp`) };
        if (dirname(beside.path) !== folder) throw new ObjectStoreError(`companion "${companion.key}" is not in the folder of "${key}"`, 'OBJECT_KEY_INVALID');
        await writeFile(beside.temporary, companion.bytes);
        await syncFile(beside.temporary);
      }
      await rename(temporary, path).catch(async (error: unknown) => {
        // The folder went away since it was made (removed by hand): make it again, once.
        if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
        await mkdir(folder, { recursive: true });
        await rename(temporary, path);
      });
      // Renamed after the object, and both made durable by the one folder sync below.
      if (beside !== undefined) await rename(beside.temporary, beside.path);
      await syncDirectory(folder);
    } catch (error) {
      await rm(temporary, { force: true });
      if (beside !== undefined) await rm(beside.temporary, { force: true });
      throw error;
    }
    return { key, size };
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { key, size: info.size } : undefined;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key));
    // Opening fails asynchronously; wait for it so a missing key rejects here, not mid-read.
    await new Promise<void>((done, fail) => stream.once('open', () => done()).once('error', fail));
    return stream;
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const found: StoredObject[] = [];
    await this.#walk('', prefix, found);
    found.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
    yield* found;
  }

  async #walk(relative: string, prefix: string, found: StoredObject[]): Promise<void> {
    let directory;
    try {
      directory = await opendir(join(this.root, relative));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return;
      throw error;
    }
    for await (const entry of directory) {
      const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (key === FOLDER_STAGING) continue;
      if (entry.isDirectory()) {
        // Only folders that can hold keys with the prefix are entered.
        if (prefix.startsWith(`${key}/`) || `${key}/`.startsWith(prefix)) await this.#walk(key, prefix, found);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        found.push({ key, size: (await stat(join(this.root, key))).size });
      }
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async ping(): Promise<void> {
    // Writable, not only present: a put needs the staging directory.
    const probe = join(this.#staging, `${randomUUID()}.ping`);
    await (await open(probe, 'w')).close();
    await unlink(probe);
  }

  async close(): Promise<void> {}
}

/** Renames `from` to `to`; false when they are on different file systems (the caller copies). */
async function moved(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EXDEV') return false;
    throw error;
  }
}

/** Syncs a file to disk; resolves with its size (read beside the sync: each is a trip to libuv's threads). */
async function syncFile(path: string): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const [, info] = await Promise.all([handle.sync(), handle.stat()]);
    return info.size;
  } finally {
    await handle.close();
  }
}

/** Syncs a directory, so the renames into it are durable. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
