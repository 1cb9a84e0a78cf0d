/**
 * What reading a route file's export shares, whatever it is (a handler, a live page's `mount`,
 * a socket listener): the compiler and what the build found (`Checking`), and where a finding
 * about it points (`Site`, `spot`, `fail`).
 */
import type * as ts from "typescript";
import { at, type Finding } from "./diagnostics.js";

/** Where a model's file field is declared: the model and the field, and whether its routes (and table) were made. */
export interface FileFieldSite {
  readonly model: string;
  readonly field: string;
  /** The model derives Resource with a table, and the field is one of its file fields. */
  readonly usable: boolean;
  /** The field is an image with this pixel limit. */
  readonly maxPixels?: number;
}

/** What the analysis needs from the compiler, and what the build found so far. */
export interface Checking {
  readonly ts: typeof ts;
  readonly checker: ts.TypeChecker;
  /** Shows a file path as messages do. */
  readonly shown: (file: string) => string;
  readonly findings: Finding[];
  /** Models the build found, by name: a `Store<M>` of one is supplied by its store. */
  readonly models: ReadonlySet<string>;
  /** Models deriving Form alone: a live page's `FormInput<M>` may name one (the table gets its ModelSpec, no store). */
  readonly formModels: ReadonlySet<string>;
  /** Models that failed the build with their own diagnostic: a `Store<M>` of one is not looked for elsewhere. */
  readonly brokenModels: ReadonlySet<string>;
  /** Models declaring `owned`: only their store is a `ScopedStore` a handler may ask for. */
  readonly ownedModels: ReadonlySet<string>;
  /** fw's `WsListener` type, to check socket listeners against (undefined when fw's declarations are not in the program). */
  readonly wsListener: ts.Type | undefined;
  /** The capabilities module as messages show it, and what it exports by name (nothing when there is no module). */
  readonly capabilityModule: { readonly shown: string; readonly exports: ReadonlyMap<string, ts.Symbol> };
  /** fw/live's `LiveValues` type, what a click, key or change event sends (undefined when fw/live is not in the program). */
  readonly liveValues: ts.Type | undefined;
  /** The app folder: a live page's id is its route file's path under it. */
  readonly appDir: string;
  /** Every model's file field, by its declaration: what an API body's file field may name (upload-body.ts). */
  readonly fileFields: ReadonlyMap<ts.Node, FileFieldSite>;
}

/** Where a handler (or a live page's `mount`) is, for findings. */
export interface SignatureSite {
  readonly where: string;
  readonly name: string;
  readonly source: ts.SourceFile;
  readonly declaration: ts.Declaration | undefined;
  readonly signature: ts.Signature;
  readonly pattern: readonly string[];
}

/** A site without a signature: what the parameter and capability readers need. */
export type Site = Omit<SignatureSite, "signature">;

/** A finding at the site: `<where>: <message>`. */
export function fail(c: Checking, site: Site, code: Finding["code"], message: string): void {
  c.findings.push({ code, category: "error", file: site.source, ...spot(site.declaration), message: `${site.where}: ${message}` });
}

/** Where a finding about `node` points (the whole file when there is no node). */
export function spot(node: ts.Node | undefined): { start?: number; length?: number } {
  return node === undefined ? {} : at(node);
}
