import { text } from 'node:stream/consumers';
import type { ObjectStore } from '../object-storage/index.js';
import type { RecordingOutcome } from './download.js';
import { ArchiveStoreError } from './errors.js';
import { checksumObject, checksumOf, possibleKeys, type RecordingRef } from './keys.js';

/**
 * A pending recording that is already stored: a crash between the put and the row update leaves
 * the object and its checksum under the final key and the row `pending`. The checksum is the put's
 * companion, written only once the object is whole and visible after it (a folder renames it in
 * after the object; S3 puts it after the object's put or completed upload), so a whole checksum
 * beside the object proves the put ended, and its SHA-256 is that of the bytes put. It is trusted
 * rather than the object hashed again, which would read the whole object back (from a bucket, a
 * download). Resolves undefined when there is nothing whole to adopt, and the recording is downloaded.
 * A checksum without its object (a removal that crashed between the two) is removed first, so the
 * download's put can never leave an old checksum beside a new object.
 * @throws ArchiveStoreError when the store fails
 */
export async function adoptStored(
  store: ObjectStore,
  ref: RecordingRef,
  maxBytes: number,
): Promise<Extract<RecordingOutcome, { state: 'archived' }> | undefined> {
  const keys = possibleKeys(ref);
  let key: string | undefined;
  try {
    key = keys.length === 1 ? keys[0] : await checksummedKey(store, keys);
    if (key === undefined) return undefined;
    const checksumKey = checksumObject(key, '').key;
    if ((await store.head(checksumKey)) === undefined) return undefined;
    const object = await store.head(key);
    if (object === undefined) {
      await store.delete(checksumKey);
      return undefined;
    }
    const sha256 = checksumOf(key, await text(await store.read(checksumKey)));
    if (sha256 === undefined || object.size > maxBytes) return undefined;
    return { state: 'archived', key, sha256, bytes: object.size, contentType: undefined };
  } catch (error) {
    throw new ArchiveStoreError(key ?? keys[0] ?? ref.id, error);
  }
}

/**
 * Of the keys a link without an extension can have, the one with a checksum beside it: one listing
 * of the keys the record's id starts, not a lookup per media type.
 */
async function checksummedKey(store: ObjectStore, keys: readonly string[]): Promise<string | undefined> {
  const candidates = new Set(keys);
  const prefix = commonPrefix(keys);
  const checksums = new Set<string>();
  const found: string[] = [];
  for await (const object of store.list(prefix)) {
    if (candidates.has(object.key)) found.push(object.key);
    checksums.add(object.key);
  }
  // A key with both first; else one whose checksum lies alone, which the caller removes.
  return found.find((key) => checksums.has(checksumObject(key, '').key)) ?? keys.find((key) => checksums.has(checksumObject(key, '').key));
}

function commonPrefix(keys: readonly string[]): string {
  let prefix = keys[0] ?? '';
  for (const key of keys) while (!key.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
