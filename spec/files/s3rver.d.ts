// The maintained fork of s3rver ships no types; what spec/files/s3-server.ts uses of it.
declare module "@20minutes/s3rver" {
  interface S3rverOptions {
    readonly address?: string;
    readonly port?: number;
    readonly silent?: boolean;
    readonly directory?: string;
    readonly resetOnClose?: boolean;
    readonly configureBuckets?: readonly { readonly name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
