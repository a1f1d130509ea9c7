import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import type { S3StoreConfig } from './config.js';
import { s3Failure } from './errors.js';
import type { ObjectStore, PutBody, PutOptions, StoredObject } from './store.js';

/**
 * Objects in an S3-compatible bucket under `prefix`. A body up to one part goes as one PutObject;
 * a larger one (a stream, or a file) as a multipart upload, read one part at a time, so memory
 * holds at most one part; the key shows the object only when the upload completes, and a failed
 * upload is aborted.
 */
export class S3Store implements ObjectStore {
  readonly #client: S3Client;
  readonly #config: S3StoreConfig;

  constructor(config: S3StoreConfig) {
    this.#config = config;
    const { accessKeyId, accessKeySecret, sessionToken } = config;
    this.#client = new S3Client({
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      ...(accessKeyId === undefined || accessKeySecret === undefined
        ? {}
        : { credentials: { accessKeyId, secretAccessKey: accessKeySecret, ...(sessionToken === undefined ? {} : { sessionToken }) } }),
      // Checksums only where S3 requires them: several S3-compatible servers refuse the SDK's
      // default trailing checksums (aws-chunked bodies), while plain signed puts work everywhere.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: PutBody, options: PutOptions = {}): Promise<StoredObject> {
    const stored = await this.#put(key, body, options);
    const companion = options.companion?.();
    if (companion !== undefined) await this.#putOne(companion.key, companion.bytes, companion.contentType ?? 'application/octet-stream');
    return stored;
  }

  async #put(key: string, body: PutBody, options: PutOptions): Promise<StoredObject> {
    const contentType = options.contentType ?? 'application/octet-stream';
    if (body instanceof Uint8Array) {
      if (body.byteLength <= this.#config.partSizeBytes) return this.#putOne(key, body, contentType);
      return this.#putParts(key, Readable.from([body]), contentType);
    }
    if (body instanceof Readable) return this.#putParts(key, body, contentType);
    const { size } = await stat(body.path);
    const stored =
      size <= this.#config.partSizeBytes
        ? await this.#putOne(key, createReadStream(body.path), contentType, size)
        : await this.#putParts(key, createReadStream(body.path), contentType);
    if (body.consume === true) await unlink(body.path);
    return stored;
  }

  async #putOne(key: string, body: Uint8Array | Readable, contentType: string, size?: number): Promise<StoredObject> {
    const length = size ?? (body as Uint8Array).byteLength;
    await this.#call(`put ${key}`, () =>
      this.#client.send(
        new PutObjectCommand({ Bucket: this.#config.bucket, Key: this.#key(key), Body: body, ContentType: contentType, ContentLength: length }),
      ),
    );
    return { key, size: length };
  }

  /** Parts of `partSizeBytes` read from `body`; a body that ends within the first part goes as one put. */
  async #putParts(key: string, body: Readable, contentType: string): Promise<StoredObject> {
    const parts = partsOf(body, this.#config.partSizeBytes);
    const first = await parts.next();
    const firstPart = first.done === true ? Buffer.alloc(0) : first.value;
    const second = first.done === true ? first : await parts.next();
    if (second.done === true) return this.#putOne(key, firstPart, contentType);
    const Bucket = this.#config.bucket;
    const Key = this.#key(key);
    const { UploadId } = await this.#call(`start upload ${key}`, () =>
      this.#client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: contentType })),
    );
    const completed: CompletedPart[] = [];
    let size = 0;
    try {
      const upload = async (part: Buffer): Promise<void> => {
        const PartNumber = completed.length + 1;
        const answer = await this.#call(`upload part ${PartNumber} of ${key}`, () =>
          this.#client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part, ContentLength: part.byteLength })),
        );
        completed.push({ PartNumber, ETag: answer.ETag });
        size += part.byteLength;
      };
      await upload(firstPart);
      await upload(second.value);
      for await (const part of { [Symbol.asyncIterator]: () => parts }) await upload(part);
      await this.#call(`complete upload ${key}`, () =>
        this.#client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: completed } })),
      );
    } catch (error) {
      await this.#client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
      throw error;
    }
    return { key, size };
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const answer = await this.#client.send(new HeadObjectCommand({ Bucket: this.#config.bucket, Key: this.#key(key) }));
      return { key, size: answer.ContentLength ?? 0 };
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw s3Failure(error, this.#config.bucket, `head ${key}`);
    }
  }

  async read(key: string): Promise<Readable> {
    const answer = await this.#call(`get ${key}`, () => this.#client.send(new GetObjectCommand({ Bucket: this.#config.bucket, Key: this.#key(key) })));
    return answer.Body as Readable;
  }

  /**
   * ListObjects (v1), paged by the last key: every S3-compatible server implements it the same way,
   * while v2's continuation tokens are each server's own (s3rver's need a cipher Node 17+ refuses).
   */
  async *list(prefix: string): AsyncIterable<StoredObject> {
    const strip = this.#config.prefix.length;
    let marker: string | undefined;
    for (;;) {
      const answer = await this.#call(`list ${prefix}`, () =>
        this.#client.send(
          new ListObjectsCommand({ Bucket: this.#config.bucket, Prefix: this.#key(prefix), ...(marker === undefined ? {} : { Marker: marker }) }),
        ),
      );
      const contents = answer.Contents ?? [];
      for (const object of contents) if (object.Key !== undefined) yield { key: object.Key.slice(strip), size: object.Size ?? 0 };
      if (answer.IsTruncated !== true || contents.length === 0) return;
      marker = answer.NextMarker ?? contents.at(-1)?.Key;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#call(`delete ${key}`, () => this.#client.send(new DeleteObjectCommand({ Bucket: this.#config.bucket, Key: this.#key(key) })));
  }

  async ping(): Promise<void> {
    await this.#call('list the bucket', () =>
      this.#client.send(new ListObjectsCommand({ Bucket: this.#config.bucket, Prefix: this.#config.prefix, MaxKeys: 1 })),
    );
  }

  close(): Promise<void> {
    this.#client.destroy();
    return Promise.resolve();
  }

  #key(key: string): string {
    return this.#config.prefix + key;
  }

  async #call<Output>(doing: string, request: () => Promise<Output>): Promise<Output> {
    try {
      return await request();
    } catch (error) {
      throw s3Failure(error, this.#config.bucket, doing);
    }
  }
}

/** The stream cut into parts of exactly `size` bytes (the last one shorter); one part in memory at a time. */
async function* partsOf(upload: Readable, size: number): AsyncGenerator<Buffer, void, undefined> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const chunk of upload) {
    let data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    while (length + data.byteLength >= size) {
      const take = size - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending);
      data = data.subarray(take);
      pending = [];
      length = 0;
    }
    if (data.byteLength > 0) {
      pending.push(data);
      length += data.byteLength;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}
