/**
 * fw/testing — test an app as its visitors use it: `startApp` runs the built app for one test
 * (its own process, port, secret and fresh database), and its `client()`s keep cookies and
 * submit forms with their CSRF token; the build's factories (`src/.fw/factories.ts`, made with
 * `defineFactories`) insert rows into its database. Names are re-exported one by one.
 */
export { startApp, type StartAppOptions, type TestApp } from "./start-app.js";
export { waitForMail, type MailFilter, type SentMail } from "./mailbox.js";
export { TestClient, testFile, type TestFile, type TestResponse, type SubmitOptions } from "./client.js";
export { CookieJar } from "./cookie-jar.js";
export { formsOf, refusalOf, type PageForm, type Refusal } from "./forms.js";
export { ApiError, createClient, type ApiClient, type ClientOptions } from "../client/index.js";
export { defineFactories, type Factories, type Factory, type FactorySpec } from "./factory.js";
