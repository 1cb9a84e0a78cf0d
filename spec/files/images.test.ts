import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_PIXELS,
  defaultVariants,
  inspectImage,
  makeVariant,
  normaliseImage,
  setImageConcurrency,
  variantSize,
  type ImageAnswer,
  type StoredImage,
} from "../../runtime/files/images.js";
import { imageProblems, isTimeout } from "../../runtime/files/image-problems.js";
import { formatOfHead } from "../../runtime/files/image-signature.js";
import { Slots } from "../../runtime/files/image-slots.js";

/**
 * Issue 40, item 6: fw/files' images (runtime/files/images.ts), with the real sharp. Every image
 * is made here, by sharp itself or byte by byte where sharp would refuse to write it (a PNG
 * whose header says 50,000 × 50,000 pixels).
 */
const dir = mkdtempSync(join(tmpdir(), "images-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let named = 0;
/** A fresh path in the test folder. */
function path(name: string): string {
  named += 1;
  return join(dir, `${named}-${name}`);
}

/** A photo-like image (smooth noise), `width` × `height`, in `format`, written to a fresh path. */
async function photo(width: number, height: number, format: "jpeg" | "png" | "webp" | "gif" | "avif", name = `photo.${format}`): Promise<string> {
  const seed = await sharp({ create: { width: 16, height: 12, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer();
  const file = path(name);
  const image = sharp(seed).resize(width, height, { fit: "fill" });
  await (format === "avif" ? image.avif({ effort: 0 }) : image[format]()).toFile(file);
  return file;
}

/** A copy of a PNG with every chunk's CRC-32 computed again over its (maybe damaged) bytes. */
function withFixedCrcs(png: Buffer): Buffer {
  const copy = Buffer.from(png);
  for (let at = 8; at + 12 <= copy.length; ) {
    const length = copy.readUInt32BE(at);
    copy.writeUInt32BE(crc32(copy.subarray(at + 4, at + 8 + length)), at + 8 + length);
    at += 12 + length;
  }
  return copy;
}

/** A PNG chunk: length, type, data, CRC-32 of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: an RGB PNG whose header says `width` × `height`, with a body of a few
 * compressed rows of zeros. Nothing here ever allocates the decoded image (7.5 GB at 50,000²).
 */
function pngBomb(width: number, height: number): string {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  const rows = deflateSync(Buffer.alloc(4 * (1 + width * 3)));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const file = path(`bomb-${width}x${height}.png`);
  writeFileSync(file, Buffer.concat([signature, pngChunk("IHDR", header), pngChunk("IDAT", rows), pngChunk("IEND", Buffer.alloc(0))]));
  return file;
}

function accepted<T>(answer: ImageAnswer<T>): T {
  if (!answer.ok) throw new Error(`expected the image to be accepted, got the problem: ${answer.problem}`);
  return answer.image;
}

function problemOf<T>(answer: ImageAnswer<T>): string {
  if (answer.ok) throw new Error(`expected a problem, the image was accepted: ${JSON.stringify(answer.image)}`);
  return answer.problem;
}

/** Files left in the test folder whose name says they are a write's part file. */
function partFiles(): string[] {
  return readdirSync(dir).filter((name) => name.endsWith(".part"));
}

const MB = 1024 * 1024;

describe("inspecting an uploaded image", () => {
  it.each([
    ["png", "image/png"],
    ["jpeg", "image/jpeg"],
    ["gif", "image/gif"],
    ["webp", "image/webp"],
    ["avif", "image/avif"],
  ] as const)("accepts a valid %s with its width and height", async (format, type) => {
    const file = await photo(321, 123, format);
    expect(accepted(await inspectImage(file))).toEqual({ format, type, width: 321, height: 123, frames: 1 });
  });

  it("refuses a zero-byte file", async () => {
    const file = path("empty.png");
    writeFileSync(file, "");
    expect(problemOf(await inspectImage(file))).toBe("The file is empty: choose a PNG, JPEG, GIF, WebP or AVIF image.");
  });

  it("refuses what is not one of the five formats by its bytes, SVG and TIFF included (libvips could read them)", async () => {
    const html = path("page.png");
    writeFileSync(html, "<!doctype html><script>alert(1)</script>");
    const svg = path("drawing.svg");
    writeFileSync(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`);
    const tiff = path("scan.tiff");
    await sharp({ create: { width: 10, height: 10, channels: 3, background: "#000" } }).tiff().toFile(tiff);
    expect(await sharp(tiff).metadata()).toMatchObject({ format: "tiff" }); // libvips reads it: fw must not
    for (const file of [html, svg, tiff]) {
      expect(problemOf(await inspectImage(file))).toBe("The file is not a PNG, JPEG, GIF, WebP or AVIF image.");
    }
  });

  it("refuses a file whose signature is an image's but whose header is damaged", async () => {
    const file = path("damaged.jpg");
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from("not a JPEG header at all, only words")]));
    expect(problemOf(await inspectImage(file))).toBe("The JPEG image could not be read: the file is damaged or incomplete.");
  });

  it("tells an animation's size by frame, and counts every frame against the limit", async () => {
    const file = await animatedGif(60, 40, 3);
    expect(accepted(await inspectImage(file))).toEqual({ format: "gif", type: "image/gif", width: 60, height: 40, frames: 3 });
    expect(problemOf(await inspectImage(file, { maxPixels: 60 * 40 * 2 }))).toBe(
      "The animation is 60 × 40 pixels in 3 frames (7,200 pixels); at most 4,800 pixels are accepted.",
    );
  });

  it("reads formats from their signatures, AVIF by its ftyp brands", () => {
    const ftyp = (major: string, ...brands: string[]): Buffer => {
      const box = Buffer.alloc(16 + 4 * brands.length);
      box.writeUInt32BE(box.length, 0);
      box.write("ftyp", 4, "latin1");
      box.write(major, 8, "latin1");
      brands.forEach((brand, i) => box.write(brand, 16 + 4 * i, "latin1"));
      return box;
    };
    expect(formatOfHead(ftyp("avif", "mif1"))).toBe("avif");
    expect(formatOfHead(ftyp("mif1", "miaf", "avif"))).toBe("avif");
    expect(formatOfHead(ftyp("heic", "mif1", "heic"))).toBeUndefined();
    expect(formatOfHead(Buffer.from("RIFF\0\0\0\0WAVE"))).toBeUndefined();
    expect(formatOfHead(Buffer.from("GIF89a"))).toBe("gif");
    expect(formatOfHead(Buffer.alloc(0))).toBeUndefined();
  });
});

async function animatedGif(width: number, height: number, frames: number): Promise<string> {
  const colours = ["#e22", "#2e2", "#22e", "#ee2", "#2ee"];
  const pages = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 3, background: colours[i % colours.length] ?? "#000" } }).png().toBuffer()),
  );
  const file = path("animation.gif");
  await sharp(pages, { join: { animated: true } }).gif({ delay: pages.map(() => 100), loop: 0 }).toFile(file);
  return file;
}

describe("the pixel limit against decompression bombs", () => {
  it("refuses a 50,000 × 50,000 PNG from its header, without decoding it (RSS printed)", async () => {
    const file = pngBomb(50_000, 50_000);
    expect(statSync(file).size).toBeLessThan(2_000);
    const output = path("bomb-normalised.png");
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 1);
    try {
      const message = "The image is 50000 × 50000 pixels; at most 50 million pixels are accepted.";
      expect(problemOf(await inspectImage(file))).toBe(message);
      expect(problemOf(await normaliseImage(file, output))).toBe(message);
    } finally {
      clearInterval(sampler);
    }
    const after = process.memoryUsage().rss;
    console.log(
      `50,000 × 50,000 PNG bomb (${statSync(file).size} bytes): RSS ${(before / MB).toFixed(1)} MB before, ` +
        `${(after / MB).toFixed(1)} MB after, peak growth ${((peak - before) / MB).toFixed(1)} MB`,
    );
    expect(existsSync(output)).toBe(false);
    // Decoding would need 7.5 GB; the header check needs next to nothing. Not a timing: a bound on memory.
    expect(peak - before).toBeLessThan(64 * MB);
  });

  it("refuses a 100-megapixel bomb that libvips' own default limit (268 megapixels) would decode", async () => {
    const file = pngBomb(10_000, 10_000);
    expect(problemOf(await normaliseImage(file, path("out.png")))).toBe("The image is 10000 × 10000 pixels; at most 50 million pixels are accepted.");
  });

  it("takes a field's own limit, lower or higher than the default", async () => {
    const file = await photo(300, 200, "png");
    expect(problemOf(await inspectImage(file, { maxPixels: 50_000 }))).toBe("The image is 300 × 200 pixels; at most 50,000 pixels are accepted.");
    expect(accepted(await inspectImage(file, { maxPixels: 60_000 }))).toMatchObject({ width: 300, height: 200 });
    const large = pngBomb(8_000, 8_000); // 64 MP: over the default, under a limit of 100 MP
    expect(problemOf(await inspectImage(large))).toContain("at most 50 million pixels");
    expect(accepted(await inspectImage(large, { maxPixels: 100_000_000 }))).toMatchObject({ width: 8_000, height: 8_000 });
  });

  it("refuses a limit that is no positive whole number", async () => {
    const file = await photo(10, 10, "png");
    for (const maxPixels of [0, -1, 1.5, Number.NaN]) {
      await expect(inspectImage(file, { maxPixels })).rejects.toThrow(`An image's maxPixels must be a whole number of at least 1; got ${maxPixels}.`);
    }
    expect(DEFAULT_MAX_PIXELS).toBe(50_000_000);
  });
});

const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.4N" exif:GPSLongitude="2,21.05E"/></rdf:RDF></x:xmpmeta>`;

/** The EXIF a phone writes: its make and model, and where the photo was taken. */
const PHONE_EXIF = {
  IFD0: { Make: "AcmePhones", Model: "Acme Nine Pro", Software: "AcmeCam 4.2" },
  IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 2400/100", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 300/100" },
};

/** A phone photo: 400 × 300 pixels stored sideways (EXIF orientation 6), with GPS EXIF and XMP. */
async function phonePhoto(format: "jpeg" | "png" | "webp"): Promise<string> {
  const file = path(`phone.${format}`);
  const seed = await sharp({ create: { width: 16, height: 12, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer();
  await sharp(seed).resize(400, 300, { fit: "fill" })[format]().withExif(PHONE_EXIF).withXmp(XMP).withMetadata({ orientation: 6 }).toFile(file);
  return file;
}

/** Asserts a file carries none of the uploader's metadata, by sharp's reading and by its bytes. */
async function expectNoMetadata(file: string): Promise<void> {
  const metadata = await sharp(file).metadata();
  expect(metadata.exif).toBeUndefined();
  expect(metadata.xmp).toBeUndefined();
  expect(metadata.iptc).toBeUndefined();
  expect(metadata.icc).toBeUndefined();
  expect(metadata.orientation).toBeUndefined();
  expect(metadata.comments).toBeUndefined();
  const bytes = readFileSync(file).toString("latin1");
  for (const trace of ["Exif\0\0", "EXIF", "eXIf", "AcmePhones", "Acme Nine", "AcmeCam", "GPSLatitude", "xmpmeta", "ns.adobe.com"]) {
    expect(bytes.includes(trace), `${file} still carries ${JSON.stringify(trace)}`).toBe(false);
  }
}

describe("normalising an image at upload", () => {
  it.each(["jpeg", "png", "webp"] as const)("turns a sideways %s upright and removes its EXIF, GPS and XMP", async (format) => {
    const upload = await phonePhoto(format);
    const metadata = await sharp(upload).metadata();
    // The upload carries what a phone writes, so the test can fail.
    expect(metadata.orientation).toBe(6);
    expect(metadata.exif?.toString("latin1")).toContain("AcmePhones");
    expect(metadata.xmpAsString).toContain("GPSLatitude");
    expect(accepted(await inspectImage(upload))).toMatchObject({ width: 400, height: 300 });

    const output = path(`normalised.${format}`);
    const image = accepted(await normaliseImage(upload, output));
    expect(image).toEqual({ format, type: `image/${format}`, width: 300, height: 400, frames: 1, size: statSync(output).size });
    expect(await sharp(output).metadata()).toMatchObject({ format, width: 300, height: 400 });
    await expectNoMetadata(output);
    expect(partFiles()).toEqual([]);
  });

  it("accepts a valid PNG, JPEG, GIF, WebP and AVIF, each re-encoded in its own format", async () => {
    for (const format of ["png", "jpeg", "gif", "webp", "avif"] as const) {
      const output = path(`normalised-${format}`);
      const image = accepted(await normaliseImage(await photo(64, 48, format), output));
      expect(image).toMatchObject({ format, width: 64, height: 48, frames: 1 });
      const written = await sharp(output).metadata();
      expect(format === "avif" ? [written.format, written.compression] : [written.format]).toEqual(format === "avif" ? ["heif", "av1"] : [format]);
    }
  });

  it("converts colours to sRGB through the ICC profile, and keeps no profile", async () => {
    // Display P3 green as a phone writes it: the same numbers mean a different colour in sRGB.
    const upload = path("p3.png");
    await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 40, g: 200, b: 60 } } }).withIccProfile("p3").png().toFile(upload);
    expect((await sharp(upload).metadata()).hasProfile).toBe(true);
    const stored = [...(await sharp(upload, { ignoreIcc: true }).raw().toBuffer()).subarray(0, 3)];
    const output = path("p3-normalised.png");
    accepted(await normaliseImage(upload, output));
    expect((await sharp(output).metadata()).hasProfile).toBe(false);
    const pixel = [...(await sharp(output).raw().toBuffer()).subarray(0, 3)];
    expect(pixel).not.toEqual(stored);
    pixel.forEach((value, i) => expect(Math.abs(value - [40, 200, 60][i]!)).toBeLessThanOrEqual(2));
  });

  it("keeps a palette PNG a palette PNG, with its colours exactly", async () => {
    const upload = path("palette.png");
    const seed = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 80 } } }).png({ palette: true, colours: 16 }).toBuffer();
    writeFileSync(upload, seed);
    expect((await sharp(upload).metadata()).isPalette).toBe(true);
    const output = path("palette-normalised.png");
    accepted(await normaliseImage(upload, output));
    expect((await sharp(output).metadata()).isPalette).toBe(true);
    expect((await sharp(output).raw().toBuffer()).equals(await sharp(upload).raw().toBuffer())).toBe(true);
  });

  it("keeps an animated GIF's frames", async () => {
    const output = path("animation-normalised.gif");
    const image = accepted(await normaliseImage(await animatedGif(60, 40, 3), output));
    expect(image).toMatchObject({ format: "gif", width: 60, height: 40, frames: 3 });
    expect(await sharp(output).metadata()).toMatchObject({ format: "gif", width: 60, height: 40, pages: 3 });
  });

  it.each(["jpeg", "png"] as const)("answers a problem for a truncated %s, and writes nothing", async (format) => {
    const whole = readFileSync(await photo(800, 600, format));
    const upload = path(`truncated.${format}`);
    writeFileSync(upload, whole.subarray(0, Math.floor(whole.length / 2)));
    const output = path(`truncated-normalised.${format}`);
    const name = format === "jpeg" ? "JPEG" : "PNG";
    expect(problemOf(await normaliseImage(upload, output))).toBe(`The ${name} image could not be read: the file is damaged or incomplete.`);
    expect(existsSync(output)).toBe(false);
    expect(partFiles()).toEqual([]);
  });

  it("answers a problem for a JPEG whose data is corrupt halfway (libjpeg would paint it grey)", async () => {
    const whole = Buffer.from(readFileSync(await photo(800, 600, "jpeg")));
    // Markers inside the entropy-coded data: the decoder meets a segment where data should be.
    for (let at = Math.floor(whole.length / 2); at < whole.length / 2 + 64; at += 2) whole.writeUInt16BE(0xffc8, at);
    const upload = path("corrupt.jpg");
    writeFileSync(upload, whole);
    const output = path("corrupt-normalised.jpg");
    expect(problemOf(await normaliseImage(upload, output))).toBe("The JPEG image could not be read: the file is damaged or incomplete.");
    expect(existsSync(output)).toBe(false);
  });

  it("answers a problem for a PNG with a damaged compressed body, its checksums right or wrong", async () => {
    const whole = readFileSync(await photo(800, 600, "png"));
    const damaged = Buffer.from(whole);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    const badCrc = path("bad-crc.png");
    writeFileSync(badCrc, damaged);
    const badData = path("bad-deflate.png");
    writeFileSync(badData, withFixedCrcs(damaged));
    for (const upload of [badCrc, badData]) {
      expect(problemOf(await normaliseImage(upload, path("out.png")))).toBe("The PNG image could not be read: the file is damaged or incomplete.");
    }
  });

  it("tells sharp's timeout (the hang guard on every pipeline) from other failures", async () => {
    // A blur of radius 500 over 16 megapixels takes minutes anywhere: stopped after a second.
    const slow = sharp({ create: { width: 4000, height: 4000, channels: 3, background: "#888" } }).blur(500).timeout({ seconds: 1 }).png().toBuffer();
    const error: unknown = await slow.then(() => undefined, (failure: unknown) => failure);
    expect(isTimeout(error)).toBe(true);
    expect(isTimeout(new Error("VipsJpeg: premature end of JPEG image"))).toBe(false);
    expect(imageProblems.tooSlow(60)).toBe("The image took more than 60 seconds to process: save it again at a smaller size.");
  });

  it("throws, rather than blaming the image, when the output cannot be written", async () => {
    const upload = await photo(64, 48, "jpeg");
    await expect(normaliseImage(upload, join(dir, "no-such-folder", "out.jpg"))).rejects.toThrow();
    expect(partFiles()).toEqual([]);
  });

  it("normalises in place when the output is the input", async () => {
    const upload = await phonePhoto("jpeg");
    expect(accepted(await normaliseImage(upload, upload))).toMatchObject({ width: 300, height: 400 });
    await expectNoMetadata(upload);
  });

  it("passes an empty file and a bomb's problem on, like inspectImage", async () => {
    const empty = path("empty.jpg");
    writeFileSync(empty, "");
    expect(problemOf(await normaliseImage(empty, path("out.jpg")))).toBe("The file is empty: choose a PNG, JPEG, GIF, WebP or AVIF image.");
  });
});

describe("variants", () => {
  it("makes thumb (200 × 150) and large (1200 × 900) of a 4000 × 3000 image, in WebP", async () => {
    const original = path("original.jpg");
    accepted(await normaliseImage(await photo(4000, 3000, "jpeg"), original));
    const thumb = path("thumb.webp");
    const large = path("large.webp");
    expect(await makeVariant(original, thumb, defaultVariants.thumb)).toEqual({
      format: "webp", type: "image/webp", width: 200, height: 150, frames: 1, size: statSync(thumb).size,
    });
    expect(await makeVariant(original, large, defaultVariants.large)).toMatchObject({ format: "webp", width: 1200, height: 900 });
    expect(await sharp(thumb).metadata()).toMatchObject({ format: "webp", width: 200, height: 150 });
    expect(await sharp(large).metadata()).toMatchObject({ format: "webp", width: 1200, height: 900 });
  });

  it("never enlarges a 100 × 80 image", async () => {
    const original = await photo(100, 80, "png");
    for (const variant of [defaultVariants.thumb, defaultVariants.large]) {
      const output = path("small-variant.webp");
      expect(await makeVariant(original, output, variant)).toMatchObject({ width: 100, height: 80 });
      expect(await sharp(output).metadata()).toMatchObject({ width: 100, height: 80 });
    }
  });

  it("carries no EXIF, GPS or XMP, made from the normalised image or straight from an upload", async () => {
    const upload = await phonePhoto("jpeg");
    const original = path("phone-normalised.jpg");
    accepted(await normaliseImage(upload, original));
    for (const source of [original, upload]) {
      for (const [name, variant] of Object.entries(defaultVariants)) {
        const output = path(`${name}.webp`);
        expect(await makeVariant(source, output, variant)).toMatchObject(variantSize(variant, { width: 300, height: 400 }));
        await expectNoMetadata(output);
      }
      const jpeg = path("thumb.jpg");
      expect(await makeVariant(source, jpeg, { ...defaultVariants.thumb, format: "jpeg" })).toMatchObject({ format: "jpeg", width: 150, height: 200 });
      await expectNoMetadata(jpeg);
    }
  });

  it("is written in the format asked for", async () => {
    const original = await photo(640, 480, "jpeg");
    for (const format of ["webp", "avif", "jpeg", "png"] as const) {
      const output = path(`variant-${format}`);
      expect(await makeVariant(original, output, { width: 64, height: 64, format })).toMatchObject({ format, type: `image/${format}`, width: 64, height: 48 });
      const written = await sharp(output).metadata();
      expect(written.format === "heif" ? "avif" : written.format).toBe(format);
    }
  });

  it("keeps an animation in WebP, and takes its first frame in another format", async () => {
    const gif = await animatedGif(60, 40, 3);
    const webp = path("animated-thumb.webp");
    expect(await makeVariant(gif, webp, { width: 30, height: 30 })).toMatchObject({ format: "webp", width: 30, height: 20, frames: 3 });
    expect(await sharp(webp).metadata()).toMatchObject({ width: 30, height: 20, pages: 3 });
    const png = path("animated-thumb.png");
    expect(await makeVariant(gif, png, { width: 30, height: 30, format: "png" })).toMatchObject({ width: 30, height: 20, frames: 1 });
  });

  it("has the size variantSize tells, for sizes that round either way", async () => {
    const sizes: [number, number][] = [[4000, 3000], [1000, 333], [333, 1000], [201, 199], [1201, 401], [10_000, 10], [10, 10_000], [150, 150], [199, 250], [2999, 1999]];
    const box = { width: 200, height: 200 };
    for (const [width, height] of sizes) {
      const source = path(`${width}x${height}.png`);
      await sharp({ create: { width, height, channels: 3, background: "#777" } }).png().toFile(source);
      const made = await makeVariant(source, path("sized.webp"), box);
      expect({ width: made.width, height: made.height }, `${width} × ${height}`).toEqual(variantSize(box, { width, height }));
    }
    expect(variantSize(defaultVariants.large, { width: 4000, height: 3000 })).toEqual({ width: 1200, height: 900 });
    expect(variantSize(defaultVariants.thumb, { width: 100, height: 80 })).toEqual({ width: 100, height: 80 });
  });

  it("refuses a variant that is no box, and a source that is no image", async () => {
    const original = await photo(64, 48, "png");
    await expect(makeVariant(original, path("x.webp"), { width: 0, height: 10 })).rejects.toThrow("An image variant's width must be a whole number of at least 1; got 0.");
    await expect(makeVariant(original, path("x.webp"), { width: 10, height: 10, quality: 101 })).rejects.toThrow("quality must be a whole number from 1 to 100; got 101.");
    const text = path("notes.txt");
    writeFileSync(text, "hello");
    await expect(makeVariant(text, path("x.webp"), defaultVariants.thumb)).rejects.toThrow(`fw/files cannot make a variant of ${text}: The file is not a PNG, JPEG, GIF, WebP or AVIF image.`);
    expect(partFiles()).toEqual([]);
  });
});

describe("decoding a few images at a time", () => {
  it("runs at most `size` tasks at once, in arrival order, and frees a slot when a task fails", async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) => async (): Promise<number> => {
      started.push(n);
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      if (n === 1) throw new Error("task 1 fails");
      return n;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((n) => slots.run(task(n))));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
  });

  it("starts waiting tasks when it grows", async () => {
    const slots = new Slots(1);
    const release: (() => void)[] = [];
    let running = 0;
    const blocked = () => slots.run(() => new Promise<void>((resolve) => { running += 1; release.push(resolve); }));
    const all = Promise.all([blocked(), blocked(), blocked()]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(1);
    slots.resize(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(3);
    release.forEach((resolve) => resolve());
    await all;
  });

  it("refuses a concurrency that is no positive whole number", () => {
    expect(() => setImageConcurrency(0)).toThrow("An image concurrency must be a whole number of at least 1; got 0.");
    expect(() => new Slots(1.5)).toThrow("got 1.5");
  });
});
