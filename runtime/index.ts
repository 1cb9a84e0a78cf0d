/**
 * fw — the public API of the HTTP core. Names are re-exported one by one; everything else under
 * runtime/ is internal. Optional modules (auth, …) have entries of their own.
 */
export { METHODS, type Method } from "./http/method.js";
export {
  NotFound,
  MethodNotAllowed,
  NotImplemented,
  BadRequest,
  PayloadTooLarge,
  Forbidden,
  StateConflict,
  UnprocessableContent,
  ServiceUnavailable,
  InternalServerError,
  type HttpFailure,
} from "./http/failure.js";
export { Fields } from "./http/fields.js";
export { RequestHeaders } from "./http/headers.js";
export { Request, ApiRequest, withCurrentUser, type JsonRequest, type QueryText, type RequestInit } from "./http/request.js";
export { queryDecoder, type QueryDecoder, type QueryParamShape } from "./http/query-params.js";
export { UploadedFile, Uploads, UploadTooLarge, IMAGE_TYPES, type FileField, type FileFields, type UploadProblem, type UploadedFileInit } from "./http/uploads.js";
export { DEFAULT_MAX_UPLOAD_REQUEST_BYTES, type UploadSettings } from "./server/multipart-body.js";
export {
  Json,
  JsonProblem,
  jsonAnswerMismatch,
  MAX_JSON_ERRORS,
  type JsonCheck,
  type JsonAnswerAt,
  type JsonAnswerOf,
  type JsonError,
  type JsonProblemBody,
  type JsonProblemResponse,
  type JsonRead,
  type JsonResponse,
} from "./http/json.js";
export { typedJsonWriter } from "./http/json-writer.js";
// For the generated .fw/api.ts (fw/client's calls are typed by it): the same types fw/client exports.
export type { AnswerChecks, ApiAnswer, ApiBody, ApiJsonAnswer, ApiParam, ApiQuery, UploadRoutes } from "./client/types.js";
export { Response, Ok, Redirect, status, type Body, type Content, type Header } from "./http/response.js";
export { Cookie } from "./http/cookie.js";
export { Session } from "./http/session.js";
export { Secret } from "./http/secret.js";
export { PathPattern, type Segment } from "./routing/path-pattern.js";
export { FromPath, type ParamDecoders } from "./routing/from-path.js";
export { fillPath, type PathQuery, type PathValue } from "./routing/fill-path.js";
export {
  Route,
  Origin,
  type HttpRoute,
  type WsRoute,
  type WsRouteOptions,
  type Handler,
  type ApiHandler,
  type HttpRouteInit,
  type ApiRouteInit,
  type Described,
} from "./routing/route.js";
export type { AnswerDescription, ApiDescription, OperationDescription } from "./routing/api-description.js";
export type { Kind } from "./routing/kind.js";
export { RouteTable, type Identify } from "./routing/route-table.js";
export { BootError } from "./routing/boot-error.js";
export { assembleTable, guardAsRole, guardRoutes, type GuardDeclaration } from "./routing/assemble.js";
export { derives, type BooleanField, type Companion, type Derivation, type FieldName, type ModelOptions } from "./resource/derives.js";
export { Action, Actions, Index, New, Show, Edit, Create, Update, Destroy } from "./resource/actions.js";
export type { Id, LongText, OnDelete, Unique } from "./resource/types.js";
export type { Image, ImageOptions, StoredFile, StoredImage, Upload, UploadOptions } from "./resource/file-types.js";
export type { FieldSpec, InputKind, ModelSpec, ReferenceSpec, Validation } from "./resource/model.js";
export { FormErrors, type FieldProblem } from "./resource/form-errors.js";
export { Form, VERSION_FIELD, type ButtonProps, type Field, type Parsed, type RenderProps, type Values } from "./resource/form.js";
export type { AllRows, Draft, Store, Versioned } from "./resource/store.js";
export type { FieldCondition, FieldConditions, FieldValue, Hit, KeysOf, ListPage, Order, Page, Query, RowCondition, RowFilter, Search, SearchPage, SearchResults, Where, WhereValue } from "./resource/query.js";
export type { Choice, Choices } from "./resource/reference-input.js";
export { Conflict, DuplicateValue, MissingReference, StillReferenced } from "./resource/store-errors.js";
export { InMemoryStore } from "./resource/in-memory-store.js";
export { InMemoryDatabase } from "./resource/in-memory-database.js";
export { Relations, type RelatedModel } from "./resource/relations.js";
export { Resource, resourceRoutes, PAGE_SIZE, type ResourceOptions } from "./resource/resource.js";
export { countAhead, pagesCounted, PAGES_AHEAD, type PagesCounted } from "./resource/page-count.js";
export { pickerScriptRoute } from "./resource/picker-script.js";
export { uploadScriptRoute } from "./resource/upload-script.js";
export { KEPT_PREFIX, REMOVE_PREFIX, type ModelFiles, type ReceivedFiles, type StoredUpload } from "./resource/model-files.js";
export { apiUpload, type TextCheck, type UploadTarget } from "./resource/api-upload.js";
export type { UploadBody, UploadSource } from "./http/upload-body.js";
export { defaultVariants, imageVariant, variantSize, type ImageVariant, type VariantBox, type VariantName } from "./resource/image-variants.js";
export { ScopedStore } from "./resource/scoped-store.js";
export { viewerCapabilities, ViewerStore, withCapabilities } from "./resource/viewer-stores.js";
export type { OwnedDeclaration } from "./resource/owned-declaration.js";
export type { Clause, PolicyDeclaration, PolicyRules, Rows, Viewer, Who } from "./resource/policy.js";
export type { WsListener, WsConnection } from "./routing/ws-listener.js";
export { Room, MAX_ROOM_NAME } from "./ws/room.js";
export type { FanOut } from "./ws/fan-out.js";
export { DEFAULT_WS_SEND_TIMEOUT_MS, DEFAULT_WS_PING_INTERVAL_MS, DEFAULT_WS_MAX_MESSAGE_BYTES } from "./ws/defaults.js";
export type { Problem } from "./server/problem.js";
export { defaultLayout, type Layout, type LayoutProps } from "./server/layout.js";
export {
  HttpApp,
  DEFAULT_MAX_BODY_SIZE,
  DEFAULT_SESSION_MAX_AGE_S,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  type HttpAppOptions,
  type ServeOptions,
} from "./app/http-app.js";
export type { Console } from "./app/console.js";
export { log } from "./log/process-logger.js";
export { REQUEST_ID_HEADER } from "./log/request-id.js";
export { LOG_LEVELS, type LogFormat, type LogLevel } from "./log/settings.js";
export type { AppPart, AppPartBoot, AppPartContext } from "./app/app-part.js";
export { publicOrigin, publicUrl } from "./server/public-origin.js";
export {
  DEFAULT_CONTENT_SECURITY_POLICY,
  type ContentSecurityPolicy,
  type ContentSecurityPolicySetting,
} from "./server/content-security-policy.js";
export { DEFAULT_HSTS_MAX_AGE_S, type StrictTransportSecurity } from "./server/strict-transport-security.js";
export type { RunningServer } from "./server/server.js";
export { isDevMode } from "./server/run-mode.js";
export { raw, escapeHtml, renderHtml, Fragment, type Html, type Child, type Node } from "./html/index.js";
