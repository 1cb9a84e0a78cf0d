import S3rver from "@20minutes/s3rver";
import { removeFolder, tempFolder } from "./support.js";

/**
 * A real S3-compatible server for the tests: the maintained fork of s3rver (a dev dependency),
 * on 127.0.0.1 and an ephemeral port, keeping its objects in a temp folder, with SigV4 checked
 * against its fixed credentials (S3RVER / S3RVER), which this sets in the environment for the
 * AWS SDK's usual credential chain. Its bucket is made when it starts (fw never creates buckets;
 * and this s3rver refuses the SDK's CreateBucket, whose path ends in "/", on a signature check).
 * Known limit: it does not verify `x-amz-checksum-sha256` itself (AWS does); fw's own check of
 * the bytes on their way (`Verified`) is what the tests see refuse a mismatch.
 */
export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** `FW_STORAGE` naming this server's bucket. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startS3Server(bucket = "fw-test"): Promise<S3Server> {
  process.env["AWS_ACCESS_KEY_ID"] = "S3RVER";
  process.env["AWS_SECRET_ACCESS_KEY"] = "S3RVER";
  // The SDK's notice that its 2027 releases will need Node 22, printed once per process: noise in test output.
  process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] = "true";
  const directory = tempFolder("s3rver-");
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    url: `s3://${bucket}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&forcePathStyle=true`,
    close: async () => {
      await server.close();
      removeFolder(directory);
    },
  };
}
