import { z } from 'zod';

/** A local folder (`type: folder`): objects are files under `path`, written to a temporary name and renamed. */
const folderStoreSchema = z.strictObject({
  type: z.literal('folder'),
  /** The folder; created when missing. Relative paths are from the working directory. */
  path: z.string().min(1),
});

const bucketName = z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { error: 'expected an S3 bucket name (3-63 characters: a-z, 0-9, ".", "-")' });

/**
 * An S3-compatible bucket (`type: s3`): AWS S3, MinIO, Cloudflare R2, Ceph, GCS's XML API…
 * Credentials are `accessKeyId` with `accessKeySecret` (write `${NAME}` or `${file:/path}`; the
 * secret is redacted from every output), or, when both are absent, the AWS SDK's own chain
 * (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `~/.aws/credentials`, `AWS_PROFILE`, an instance role).
 */
const s3StoreSchema = z
  .strictObject({
    type: z.literal('s3'),
    bucket: bucketName,
    /** Prepended to every key, e.g. `callsync/`; a missing trailing `/` is added. @defaultValue '' */
    prefix: z
      .string()
      .regex(/^(?!\/)[^\\]*$/, { error: 'expected a key prefix without a leading "/"' })
      .default('')
      .transform((prefix) => (prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`)),
    /** The service's URL, for anything but AWS (`http://127.0.0.1:9000` for MinIO). @defaultValue AWS's endpoint for `region` */
    endpoint: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    /** @defaultValue `us-east-1` */
    region: z.string().min(1).default('us-east-1'),
    /** `bucket` in the path (`endpoint/bucket/key`) instead of the host name; most S3-compatible servers need it. @defaultValue false */
    forcePathStyle: z.boolean().default(false),
    accessKeyId: z.string().min(1).optional(),
    /** Never logged; redacted from every output. */
    accessKeySecret: z.string().min(1).optional(),
    /** Temporary credentials' session token. Never logged. */
    sessionToken: z.string().min(1).optional(),
    /** Bodies larger than this go as a multipart upload in parts of this size (S3's minimum part is 5 MiB). @defaultValue 8 MiB */
    partSizeBytes: z
      .int()
      .min(5 * 1024 * 1024)
      .max(5 * 1024 * 1024 * 1024)
      .default(8 * 1024 * 1024),
  })
  .refine((config) => (config.accessKeyId === undefined) === (config.accessKeySecret === undefined), {
    error: 'give accessKeyId and accessKeySecret together, or neither (the AWS SDK then finds credentials in the environment or ~/.aws)',
    path: ['accessKeySecret'],
  });

/** Where objects go: `{ type: folder, path }` or `{ type: s3, bucket, … }`. */
export const objectStoreConfigSchema = z.discriminatedUnion('type', [folderStoreSchema, s3StoreSchema]);

export type FolderStoreConfig = z.output<typeof folderStoreSchema>;
export type S3StoreConfig = z.output<typeof s3StoreSchema>;
export type ObjectStoreConfig = z.output<typeof objectStoreConfigSchema>;
