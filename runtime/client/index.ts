/**
 * fw/client — a typed client of an fw app's JSON API, typed by the app's generated `Api`
 * (`.fw/api.ts`, written by the build from the handlers' own types). Plain `fetch`: it runs in
 * Node 20 and in the browser. Names are re-exported one by one.
 */
export { ApiError, createClient, type ApiErrorKind, type ClientArgs, type ClientOptions } from "./client.js";
export type {
  AnswerChecks,
  ApiAnswer,
  ApiBody,
  ApiClient,
  ApiJsonAnswer,
  ApiParam,
  ApiRoute,
  CallAnswer,
  CallArgs,
  CallOptions,
  FileKeys,
  PathsOf,
  ProblemDetails,
  RawAnswer,
  RouteAt,
  SentBody,
  UploadRoutes,
} from "./types.js";
