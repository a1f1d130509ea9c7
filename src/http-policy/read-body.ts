/** A body passed its size bound; reading stopped there. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  readonly code = 'BODY_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`body larger than ${maxBytes} bytes (maxBodyBytes): not read further`);
  }
}

/** A response body as undici gives it. */
export interface BodyStream extends AsyncIterable<Uint8Array> {
  destroy(error?: Error): unknown;
}

/**
 * Reads a body to its end, counting bytes as they stream in: past `maxBytes` (or when the declared
 * `content-length` already says so) it destroys the stream and throws `BodyTooLargeError`, so no
 * more than `maxBytes` is ever held.
 */
export async function readBoundedBody(body: BodyStream, maxBytes: number, contentLength?: string | string[]): Promise<Buffer> {
  const declared = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new BodyTooLargeError(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads at most `maxBytes` of a body and discards the rest unread (the stream is destroyed): for an
 * answer whose first bytes are all that is used (a webhook receiver's acknowledgement).
 */
export async function readBodyPrefix(body: BodyStream, maxBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= maxBytes) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, size).subarray(0, maxBytes);
}
