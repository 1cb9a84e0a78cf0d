/**
 * fw/admin — the admin back office (issue 41), an optional module: an app without one never
 * loads it. The app declares it once (`export const admin = backOffice(auth, { models: [Post,
 * Comment] })`) and the build mounts it: every model's rows past their policies (`AllRows<M>`),
 * the users (roles, locks, sign out everywhere) and the audit log of every admin write, for
 * users holding one role and a 404 for everyone else.
 */
export { backOffice, BackOffice, DEFAULT_AT, DEFAULT_ROLE, type BackOfficeOptions, type BackOfficeParts } from "./back-office.js";
export type { AdminModel, AdminSection } from "./model-section.js";
export { InMemoryAuditLog, type Actor, type AuditAction, type AuditEntry, type AuditLog, type AuditQuery, type AuditRecord, type AuditValue, type Audited, type Join } from "./audit-log.js";
export { AUDIT_PAGE_SIZE } from "./audit-section.js";
