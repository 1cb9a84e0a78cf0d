import { createReadStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import { checkedKey, ChecksumMismatch, Verified, type ByteRange, type SignedUrlOptions, type Storage, type StorageSource, type StoredBytes, type StoredInfo } from "./storage.js";

type S3Module = typeof import("@aws-sdk/client-s3");
type Presigner = typeof import("@aws-sdk/s3-request-presigner");
type S3Client = InstanceType<S3Module["S3Client"]>;

/** Where an S3-compatible bucket is, as `FW_STORAGE=s3://bucket?…` says. */
export interface S3Settings {
  readonly bucket: string;
  /** The service's address, for an S3-compatible one (MinIO, R2, …); none for AWS itself. */
  readonly endpoint?: string;
  /** Default: `AWS_REGION`, else us-east-1. */
  readonly region?: string;
  /** Path-style addresses (`endpoint/bucket/key`), which most S3-compatible services need. */
  readonly forcePathStyle?: boolean;
  /** A prefix before every key (`uploads/`), to share a bucket. */
  readonly prefix?: string;
}

/**
 * Files in an S3-compatible bucket through the AWS SDK v3, loaded on first use (an optional peer
 * dependency, like `pg`: install `@aws-sdk/client-s3`, and `@aws-sdk/s3-request-presigner` for
 * presigned URLs). Credentials come from the SDK's usual chain (`AWS_ACCESS_KEY_ID` and
 * `AWS_SECRET_ACCESS_KEY`, a profile, a role). Every `put` sends the file's own SHA-256
 * (`x-amz-checksum-sha256`), which the service checks before it stores anything: an object is
 * whole or absent. The bucket is the operator's to create.
 */
export class S3Storage implements Storage {
  readonly description: string;
  #client: Promise<{ client: S3Client; s3: S3Module }> | undefined;

  constructor(readonly settings: S3Settings) {
    this.description = `s3 ${settings.bucket}${settings.endpoint === undefined ? "" : ` (${settings.endpoint})`}`;
  }

  private connected(): Promise<{ client: S3Client; s3: S3Module }> {
    this.#client ??= loadS3().then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: this.settings.region ?? process.env["AWS_REGION"] ?? "us-east-1",
        ...(this.settings.endpoint === undefined ? {} : { endpoint: this.settings.endpoint }),
        forcePathStyle: this.settings.forcePathStyle ?? false,
      }),
    }));
    return this.#client;
  }

  private objectKey(key: string): string {
    return (this.settings.prefix ?? "") + checkedKey(key);
  }

  async put(key: string, source: StorageSource, info: StoredInfo): Promise<void> {
    const { client, s3 } = await this.connected();
    const from = "path" in source ? createReadStream(source.path) : source.stream;
    const body = new Verified(key, info);
    // What failed the bytes on their way (a mismatch, an unreadable file) is the answer, whatever the SDK makes of the cut upload.
    let failed: Error | undefined;
    // A stream cannot be sent twice: a failure on the way ends the request at once, without the SDK's retries.
    const abort = new AbortController();
    body.on("error", (error: Error) => {
      failed ??= error;
      abort.abort();
    });
    from.on("error", (error: Error) => body.destroy((failed ??= error)));
    from.pipe(body);
    try {
      await client.send(
        new s3.PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          Body: body,
          ContentLength: info.size,
          ContentType: info.type,
          // The service computes the SHA-256 of what it receives and refuses the object when it differs.
          ChecksumSHA256: Buffer.from(info.checksum, "hex").toString("base64"),
        }),
        { abortSignal: abort.signal },
      );
    } catch (error) {
      from.destroy();
      body.destroy();
      if (failed !== undefined) throw failed;
      const name = (error as { name?: string }).name;
      if (name === "BadDigest" || name === "InvalidDigest" || name === "XAmzContentSHA256Mismatch") throw new ChecksumMismatch(key, "SHA-256 checksum");
      throw error;
    }
    if ("path" in source && source.move === true) await rm(source.path, { force: true });
  }

  async get(key: string, range?: ByteRange): Promise<StoredBytes | undefined> {
    const { client, s3 } = await this.connected();
    try {
      const answer = await client.send(
        new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }) }),
      );
      const length = answer.ContentLength ?? 0;
      const whole = /\/(\d+)$/.exec(answer.ContentRange ?? "");
      return { stream: answer.Body as Readable, length, size: whole === null ? length : Number(whole[1]) };
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { client, s3 } = await this.connected();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
  }

  async exists(key: string): Promise<boolean> {
    const { client, s3 } = await this.connected();
    try {
      await client.send(new s3.HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return true;
    } catch (error) {
      if (missing(error)) return false;
      throw error;
    }
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    const { client, s3 } = await this.connected();
    const { getSignedUrl } = await loadPresigner();
    const command = new s3.GetObjectCommand({
      Bucket: this.settings.bucket,
      Key: this.objectKey(key),
      ...(options.disposition === undefined ? {} : { ResponseContentDisposition: options.disposition }),
      ...(options.type === undefined ? {} : { ResponseContentType: options.type }),
    });
    return getSignedUrl(client, command, { expiresIn: options.expiresIn });
  }
}

function missing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === "NoSuchKey" || name === "NotFound" || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}

async function loadS3(): Promise<S3Module> {
  try {
    return await import("@aws-sdk/client-s3");
  } catch (error) {
    throw new Error("FW_STORAGE names an S3 bucket, and @aws-sdk/client-s3 is not installed: npm install @aws-sdk/client-s3", { cause: error });
  }
}

async function loadPresigner(): Promise<Presigner> {
  try {
    return await import("@aws-sdk/s3-request-presigner");
  } catch (error) {
    throw new Error("Presigned S3 URLs need @aws-sdk/s3-request-presigner: npm install @aws-sdk/s3-request-presigner", { cause: error });
  }
}
