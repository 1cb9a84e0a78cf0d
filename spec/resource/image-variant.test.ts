import { describe, expect, it } from "vitest";
import { imageVariant, type StoredImage } from "../../runtime/index.js";

// Issue 40: a hand-written page (the example's live /posts) shows a cover's thumbnail as the
// derived Index does: `imageVariant` says where a variant is served and its size.
const cover: StoredImage = { key: "0123456789abcdef0123456789abcdef", name: "harbour.png", type: "image/png", size: 1234, checksum: "0".repeat(64), width: 4000, height: 3000, url: "/posts/7/cover/0123456789abcdef0123456789abcdef" };

describe("imageVariant", () => {
  it("answers the variant's address beside the file's url, and its size as fw/files makes it (ratio kept, never enlarged)", () => {
    expect(imageVariant(cover, "thumb")).toEqual({ src: `${cover.url}/thumb`, width: 200, height: 150 });
    expect(imageVariant(cover, "large")).toEqual({ src: `${cover.url}/large`, width: 1200, height: 900 });
    expect(imageVariant({ ...cover, width: 120, height: 80 }, "thumb")).toEqual({ src: `${cover.url}/thumb`, width: 120, height: 80 });
  });

  it("throws, saying what to do, for an image not read through its store (no url)", () => {
    const { url: _url, ...stored } = cover;
    expect(() => imageVariant(stored, "thumb")).toThrow(/"harbour\.png" has no url\. Read its row through the model's store/);
  });
});
