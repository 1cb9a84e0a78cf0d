import yauzl from "yauzl";

/** Every entry of a zip, read with yauzl (another library than the one that wrote it). */
export async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((done, fail) => yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, opened) => (error === null && opened !== undefined ? done(opened) : fail(error))));
  const entries = new Map<string, Buffer>();
  await new Promise<void>((done, fail) => {
    zip.on("error", fail);
    zip.on("end", () => done());
    zip.on("entry", (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error !== null || stream === undefined) return fail(error ?? new Error("no stream"));
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return entries;
}
