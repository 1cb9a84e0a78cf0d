// Issue 40 item 4: S3 storage through the AWS SDK v3, against a real S3-compatible server started
// here (s3rver's maintained fork; spec/files/s3-server.ts), never a mock of the SDK: the same
// conformance suite the disk passes, plus presigned URLs and a prefix.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStorageKey, S3Storage, storageAt, type Storage } from "../../runtime/files/index.js";
import { startS3Server, type S3Server } from "./s3-server.js";
import { storageConformance } from "./storage-conformance.js";
import { Readable } from "node:stream";

let server: S3Server;
let s3: Storage;
beforeAll(async () => {
  server = await startS3Server();
  s3 = storageAt(server.url);
});
afterAll(() => server.close());

storageConformance("S3Storage (s3rver)", () => s3);

const infoOf = (text: string) => ({ type: "text/plain", size: Buffer.byteLength(text), checksum: createHash("sha256").update(text).digest("hex") });

describe("S3Storage", () => {
  it("a presigned URL serves the bytes with the disposition and type it was signed for, and stops working once expired", async () => {
    const key = newStorageKey();
    await s3.put(key, { stream: Readable.from([Buffer.from("signed bytes")]) }, infoOf("signed bytes"));
    const url = await s3.signedUrl!(key, { expiresIn: 60, disposition: "attachment; filename=\"a.txt\"", type: "text/plain" });
    expect(url).toContain("X-Amz-Signature=");
    const answer = await fetch(url);
    expect([answer.status, answer.headers.get("content-disposition"), await answer.text()]).toEqual([200, 'attachment; filename="a.txt"', "signed bytes"]);
    const tampered = await fetch(url.replace(/X-Amz-Signature=[0-9a-f]+/, `X-Amz-Signature=${"0".repeat(64)}`));
    expect(tampered.status).toBe(403);
    const short = await s3.signedUrl!(key, { expiresIn: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await fetch(short)).status).toBe(403);
  });

  it("a prefix keeps one app's keys apart in a shared bucket", async () => {
    const prefixed = new S3Storage({ ...(s3 as S3Storage).settings, prefix: "app-a/" });
    const key = newStorageKey();
    await prefixed.put(key, { stream: Readable.from([Buffer.from("mine")]) }, infoOf("mine"));
    expect(await prefixed.exists(key)).toBe(true);
    expect(await s3.exists(key)).toBe(false);
  });
});
