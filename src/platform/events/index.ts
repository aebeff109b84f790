// The public API of the domain event bus: what modules and extensions import (through `lcds/extension` for extensions).
// Stable: names here are not renamed.
export { DomainEvent, type EventData, type EventType } from './domain-event';
export {
  CourseDeleted,
  CourseImported,
  InvitationChanged,
  InvitationCreated,
  LCDS_EVENT_TYPES,
  LearnerErased,
  RegistrationCompleted,
  RegistrationCreated,
  RegistrationDeleted,
  RegistrationProgressChanged,
  StatementsStored,
} from './lcds-events';
export { EventBus, type DurableDelivery, type DurableEventListener, type DurableListenerOptions, type EventListener, type StagedEvent } from './event-bus';
export { DOMAIN_EVENT_QUEUE, type DomainEventJob } from './domain-event-queue';
export { EventsModule } from './events.module';
