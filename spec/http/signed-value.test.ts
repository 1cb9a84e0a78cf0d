import { describe, expect, it } from "vitest";
import { Secret } from "../../runtime/http/secret.js";
import { SessionCodec } from "../../runtime/http/session-codec.js";
import { Session } from "../../runtime/http/session.js";
import { ValueSigner } from "../../runtime/http/signed-value.js";

// The signer of fw's own cookies besides the session (fw/auth's passkey challenge): HMAC-SHA256
// with the app secret under a key of its own, each value for one purpose.
const ONE = new Secret("one-secret-0123456789-abcdefghijklmnopqr");
const TWO = new Secret("two-secret-0123456789-abcdefghijklmnopqr");

describe("ValueSigner", () => {
  it("verifies what it signed for the same purpose, and nothing altered", () => {
    const signer = new ValueSigner([ONE]);
    const signed = signer.sign("challenge", "sign-in.abc.123.-");
    expect(signer.verify("challenge", signed)).toBe("sign-in.abc.123.-");
    expect(signer.verify("challenge", signed.replace("abc", "abd"))).toBeUndefined();
    expect(signer.verify("challenge", `${signed}x`)).toBeUndefined();
    expect(signer.verify("challenge", "sign-in.abc.123.-")).toBeUndefined();
    expect(signer.verify("challenge", "")).toBeUndefined();
  });

  it("a value signed for one purpose does not verify for another, however the two are split", () => {
    const signer = new ValueSigner([ONE]);
    expect(signer.verify("other", signer.sign("challenge", "x"))).toBeUndefined();
    // "a:b" + "c" and "a" + "b:c" are different pairs: the purpose's length is signed with it.
    expect(signer.verify("a", signer.sign("a:b", "c").replace(/^c/, "b:c"))).toBeUndefined();
  });

  it("only the canonical spelling of a signature counts", () => {
    const signer = new ValueSigner([ONE]);
    const signed = signer.sign("p", "text");
    const last = signed.at(-1) as string;
    // The last character carries two padding bits: another character decoding to the same bytes.
    const sibling = String.fromCharCode(last.charCodeAt(0) + 1);
    expect(signer.verify("p", signed.slice(0, -1) + sibling)).toBeUndefined();
  });

  it("rotates as the session does: an older secret verifies, the current one signs", () => {
    const before = new ValueSigner([TWO]).sign("p", "text");
    const rotated = new ValueSigner([ONE, TWO]);
    expect(rotated.verify("p", before)).toBe("text");
    expect(new ValueSigner([ONE]).verify("p", rotated.sign("p", "text"))).toBe("text");
    expect(new ValueSigner([TWO]).verify("p", rotated.sign("p", "text"))).toBeUndefined();
  });

  it("signs under a key of its own: a signed value is no session cookie, and the codec's signer is this one", () => {
    const codec = new SessionCodec([ONE], 60_000);
    const payload = Buffer.from(JSON.stringify({ i: Math.floor(Date.now() / 1000), e: { _user: "1" }, f: {} })).toString("base64url");
    const signed = codec.signer.sign("", payload);
    // Same text, signed here: as a session cookie it reads as empty.
    expect(codec.decode(`${payload}.${signed.slice(signed.lastIndexOf(".") + 1)}`, Date.now())).toBe(Session.empty);
    expect(new ValueSigner([ONE]).verify("x", codec.signer.sign("x", "y"))).toBe("y");
  });
});
