/**
 * `lcds/extension`: what an extension may use of LCDS. Everything else in LCDS may change between releases; this does
 * not without a note in the changelog. An extension is a Nest module (its package's default export) listed in
 * LCDS_EXTENSIONS; see docs/extending.md.
 */

// Declaring the extension: its name (routes under /ext/{name}/) and its migrations.
export { Extension, type ExtensionOptions, type MigrationClass } from '../platform/extensions/extension.decorator';

// Domain events: listen in process (`on`) or durably, at least once, through the job queue (`onDurable`).
export {
  CourseDeleted,
  CourseImported,
  DomainEvent,
  EventBus,
  InvitationChanged,
  InvitationCreated,
  LearnerErased,
  RegistrationCompleted,
  RegistrationCreated,
  RegistrationDeleted,
  RegistrationProgressChanged,
  StatementsStored,
  type DurableDelivery,
  type DurableEventListener,
  type DurableListenerOptions,
  type EventData,
  type EventListener,
  type EventType,
} from '../platform/events';

// Routes: LCDS's authentication. Every handler declares one of these (a route without one is refused with 403).
export { Authorize, AuthorizeManagement, PublicEndpoint } from '../platform/auth/authorize.decorator';
export { CurrentPrincipal } from '../platform/auth/current-principal.decorator';
export type { Principal } from '../platform/auth/principal';
export { Scope, type ScopeName } from '../platform/auth/scopes';

// Errors a handler throws for a 4xx with a {"message"} body (anything else is a 500 with a reference id).
export { ConflictError, DomainError, ForbiddenError, InvalidInputError, NotFoundError } from '../platform/http/domain-errors';

// Job queues of an extension's own (name them `ext.<name>.<queue>`): durable rows, retries, Bull or in-process.
export {
  defineQueue,
  JobQueue,
  UnrecoverableJobError,
  type EnqueueOptions,
  type JobContext,
  type JobHandler,
  type JobRecord,
  type QueueDefinition,
} from '../platform/queue/job-queue';

// Migrations that mean the same on SQLite and MySQL/MariaDB.
export { ColumnKit } from '../platform/database/column-kit';
