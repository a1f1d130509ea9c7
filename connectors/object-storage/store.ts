import type { Readable } from 'node:stream';

/**
 * What the Parquet sink and the recordings archive need of storage, the same for a local folder and
 * an S3-compatible bucket. Keys are `/`-separated, relative to the configured folder or prefix.
 */

/** An object as listed or looked up. */
export interface StoredObject {
  /** Relative to the store's root (the folder, or the bucket's prefix). */
  readonly key: string;
  readonly size: number;
}

/**
 * A body to store: bytes, a stream read once (never held whole: S3 gets it as a multipart upload
 * once it passes one part), or a local file; with `consume`, the store may move the file instead of
 * copying it, and removes it either way once stored.
 */
export type PutBody = Uint8Array | Readable | { readonly path: string; readonly consume?: boolean };

export interface PutOptions {
  /** @defaultValue `application/octet-stream` */
  readonly contentType?: string;
  /**
   * A small object stored with this one (a checksum), asked for once the body is whole: it becomes
   * visible after the object, never before. The folder syncs both files and then its folder once,
   * instead of once per object; a crash can leave the object without its companion, never the
   * companion without its object. @defaultValue none
   */
  readonly companion?: () => { readonly key: string; readonly bytes: Uint8Array; readonly contentType?: string };
}

/** One folder or one bucket prefix. Every method may be called concurrently. */
export interface ObjectStore {
  /**
   * Stores `body` under `key`, replacing what is there. Resolves once the object is durable (the
   * folder: written, synced and renamed into place; S3: the put or the completed multipart upload
   * acknowledged). The key never shows a partial object: a failure or a crash leaves the old one or none.
   */
  put(key: string, body: PutBody, options?: PutOptions): Promise<StoredObject>;
  /**
   * A local directory where a caller may prepare a file to `put` with `consume`, so the put is a
   * rename (the folder's own staging directory); undefined when any directory serves as well (S3).
   */
  readonly stagingDirectory?: string;
  /** The object under `key`, or undefined when there is none. */
  head(key: string): Promise<StoredObject | undefined>;
  /** The object's bytes as a stream; rejects when there is none. */
  read(key: string): Promise<Readable>;
  /** Every object whose key starts with `prefix`, in key order (UTF-8 bytes), page by page. */
  list(prefix: string): AsyncIterable<StoredObject>;
  /** Removes the object; a key with none is no error. */
  delete(key: string): Promise<void>;
  /** Resolves when the folder or bucket can be listed with these credentials; rejects with the reason otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
