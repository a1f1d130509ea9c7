// The part of s3rver (which ships no types) that test/support/s3-server.ts uses.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    directory: string;
    silent?: boolean;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    readonly store: { putBucket(name: string): Promise<unknown> };
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
