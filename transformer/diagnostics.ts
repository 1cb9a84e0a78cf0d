import type * as ts from "typescript";

/**
 * Every user mistake the transformer reports, with a stable code (tsc prints `TS9100x`).
 * docs/reference/diagnostics.md explains each one and its fix; keep the two in step
 * (a test checks that every code here is documented).
 */
export const Codes = {
  missingExport: 91001,
  notAHandler: 91002,
  unknownRequestType: 91003,
  missingCapability: 91004,
  mistypedCapability: 91005,
  duplicateRoute: 91006,
  catchAllNotLast: 91007,
  nestedDerives: 91008,
  missingGuard: 91009,
  paramNotInPath: 91010,
  capabilitiesNotObject: 91011,
  duplicateParamName: 91012,
  unsupportedField: 91013,
  modelKey: 91014,
  modelNotExported: 91015,
  ownerField: 91016,
  typiaTransformMissing: 91017,
  reservedField: 91018,
  paramNotDecodable: 91019,
  ownerNotUser: 91020,
  wsListenerShape: 91021,
  routeNeverReached: 91022,
  tableOption: 91023,
  jsonBody: 91024,
  liveUnknownEvent: 91025,
  liveEventPayload: 91026,
  liveEventsUnreadable: 91027,
  liveTakesCreate: 91028,
  failureNotThrown: 91029,
  guardedAndOwned: 91030,
  modelPathTaken: 91031,
  policyAndGuard: 91032,
  teamField: 91033,
  // Relations (issue 29) take 91040–91049.
  referenceStorage: 91040,
  onDeleteField: 91041,
  readableWithField: 91042,
  uniqueField: 91043,
  // Verified paths and live topics (issue 31) take 91050–91059.
  unknownPath: 91050,
  unknownTopic: 91051,
  extraRoutes: 91052,
  // Typed JSON answers, the OpenAPI document and fw/client (issue 31, items 4-6) take 91060–91069.
  notJson: 91060,
  // Jobs (issue 32) take 91070–91079.
  jobRunMissing: 91070,
  jobRunParameters: 91071,
  jobPayloadType: 91072,
  // Files (issue 40) take 91080–91089.
  fileField: 91080,
  fileWithoutTable: 91081,
  uploadBody: 91082,
  // Per-user API tokens (issue 42) take 91090–91099.
  unknownScope: 91090,
  tokenOnBrowserRoute: 91091,
  // The admin back office (issue 41, item 5) takes 91100–91109.
  backOfficePlace: 91100,
  backOfficeModel: 91101,
  backOfficeRole: 91102,
  backOfficeAt: 91103,
  // Queries and lists (issue 43) take 91110–91119.
  queryNotDecodable: 91110,
  sortOption: 91111,
  searchOption: 91112,
  jobStores: 91113,
  referenceList: 91114,
} as const;

export type Code = (typeof Codes)[keyof typeof Codes];

/** A user mistake found while generating: where it is, what it is, and what to write instead. */
export interface Finding {
  readonly code: Code;
  readonly category: "error" | "warning";
  readonly file: ts.SourceFile | undefined;
  /** Offset and length in `file`; the whole first line when absent. */
  readonly start?: number;
  readonly length?: number;
  readonly message: string;
  /**
   * A refused model's own mistake (issue 39 item 10): the cause of whatever else fails in the
   * app, so it is printed before every other diagnostic (leadingFile).
   */
  readonly leads?: boolean;
}

export function toDiagnostic(finding: Finding, tsApi: typeof ts): ts.Diagnostic {
  return {
    category: finding.category === "error" ? tsApi.DiagnosticCategory.Error : tsApi.DiagnosticCategory.Warning,
    code: finding.code,
    file: finding.file !== undefined && finding.leads === true ? leadingFile(finding.file) : finding.file,
    start: finding.file === undefined ? undefined : (finding.start ?? 0),
    length: finding.file === undefined ? undefined : (finding.length ?? firstLineLength(finding.file)),
    messageText: `fw: ${finding.message}`,
  };
}

/** TypeScript's internal key of a source file (not in its public types): what tsc sorts diagnostics by. */
type Keyed = ts.SourceFile & { readonly path?: string };

/**
 * tsc prints a build's diagnostics sorted by their file's `path`, then by position, so a model's
 * mistake in src/models/ would come after every error in src/app/. A leading diagnostic's file is
 * a view of the source file whose `path` sorts before every real one ("\0" and the real path, so
 * leading files keep their order among themselves); tsc prints the `fileName`, unchanged, and
 * reads the lines from the file's text. Program diagnostics are never cached by tsc's builders
 * (watch, --incremental), so the view lives for one compile.
 */
function leadingFile(file: ts.SourceFile): ts.SourceFile {
  const key = (file as Keyed).path ?? file.fileName;
  return Object.create(file, { path: { value: `\0${key}`, enumerable: true } }) as ts.SourceFile;
}

function firstLineLength(file: ts.SourceFile): number {
  const end = file.text.indexOf("\n");
  return end === -1 ? file.text.length : end;
}

/** Where a node is, for a finding. */
export function at(node: ts.Node): { start: number; length: number } {
  const start = node.getStart();
  return { start, length: node.getEnd() - start };
}
