import { DomainEvent, EventData } from './domain-event';

// The events LCDS publishes. Their `type` strings are stored in outbox rows: never rename one that was released.
// Field names follow the API V2 wire format where one exists (completion/success values, score as score.scaled).

/** A course version was imported (a new course or a new version of one), ready to be registered against. */
export class CourseImported extends DomainEvent {
  static readonly type = 'CourseImported';
  declare readonly courseId: string;
  declare readonly version: number;
  declare readonly learningStandard: string;
  declare readonly title: string;
  constructor(data: EventData<CourseImported>) {
    super(data);
  }
}

/** A course, or one of its versions (`version` set), was deleted with its registrations. */
export class CourseDeleted extends DomainEvent {
  static readonly type = 'CourseDeleted';
  declare readonly courseId: string;
  /** The deleted version; null when the whole course was deleted. */
  declare readonly version: number | null;
  constructor(data: EventData<CourseDeleted>) {
    super(data);
  }
}

/** A registration was created. */
export class RegistrationCreated extends DomainEvent {
  static readonly type = 'RegistrationCreated';
  declare readonly registrationId: string;
  declare readonly courseId: string;
  declare readonly courseVersion: number;
  declare readonly learnerId: string;
  constructor(data: EventData<RegistrationCreated>) {
    super(data);
  }
}

/**
 * A registration instance's progress changed (a player commit, statements of an xAPI or cmi5 course).
 * In-process listeners only are cheap here: it is published on the runtime's hot path.
 */
export class RegistrationProgressChanged extends DomainEvent {
  static readonly type = 'RegistrationProgressChanged';
  declare readonly registrationId: string;
  declare readonly instance: number;
  /** COMPLETED | INCOMPLETE | UNKNOWN */
  declare readonly completion: string;
  /** PASSED | FAILED | UNKNOWN */
  declare readonly success: string;
  /** The score as the API's score.scaled, null when none. */
  declare readonly score: number | null;
  declare readonly totalSecondsTracked: number;
  constructor(data: EventData<RegistrationProgressChanged>) {
    super(data);
  }
}

/** A registration instance became complete (its completion turned COMPLETED). Published once per instance. */
export class RegistrationCompleted extends DomainEvent {
  static readonly type = 'RegistrationCompleted';
  declare readonly registrationId: string;
  declare readonly instance: number;
  declare readonly courseId: string;
  declare readonly learnerId: string;
  /** PASSED | FAILED | UNKNOWN */
  declare readonly success: string;
  /** The score as the API's score.scaled, null when none. */
  declare readonly score: number | null;
  declare readonly totalSecondsTracked: number;
  /** ISO 8601, UTC. */
  declare readonly completedAt: string;
  constructor(data: EventData<RegistrationCompleted>) {
    super(data);
  }
}

/** A registration (or only one of its instances, `instance` set) was deleted. */
export class RegistrationDeleted extends DomainEvent {
  static readonly type = 'RegistrationDeleted';
  declare readonly registrationId: string;
  /** The deleted instance; null when the whole registration was deleted. */
  declare readonly instance: number | null;
  constructor(data: EventData<RegistrationDeleted>) {
    super(data);
  }
}

/** The LRS stored statements (sent by a client, or made by LCDS for a launch). */
export class StatementsStored extends DomainEvent {
  static readonly type = 'StatementsStored';
  /** The ids of the statements stored by this request (those already stored are not told again). */
  declare readonly statementIds: string[];
  /** The xAPI registration (context.registration, a UUID) the statements all name, else null. */
  declare readonly xapiRegistration: string | null;
  constructor(data: EventData<StatementsStored>) {
    super(data);
  }
}

/** A learner's data was erased (right to erasure). */
export class LearnerErased extends DomainEvent {
  static readonly type = 'LearnerErased';
  declare readonly learnerId: string;
  constructor(data: EventData<LearnerErased>) {
    super(data);
  }
}

/** An invitation (public or private) was created. */
export class InvitationCreated extends DomainEvent {
  static readonly type = 'InvitationCreated';
  declare readonly invitationId: string;
  declare readonly courseId: string;
  /** 'public' | 'private' */
  declare readonly kind: string;
  constructor(data: EventData<InvitationCreated>) {
    super(data);
  }
}

/** An invitation changed (allowed to launch or not, expiry, a learner's registration made through it, …). */
export class InvitationChanged extends DomainEvent {
  static readonly type = 'InvitationChanged';
  declare readonly invitationId: string;
  /** 'public' | 'private' */
  declare readonly kind: string;
  /** The names of the invitation's changed properties (API V2 names). */
  declare readonly changed: string[];
  constructor(data: EventData<InvitationChanged>) {
    super(data);
  }
}

/** Every event class LCDS publishes, for the durable path to know them by type. */
export const LCDS_EVENT_TYPES = [
  CourseImported,
  CourseDeleted,
  RegistrationCreated,
  RegistrationProgressChanged,
  RegistrationCompleted,
  RegistrationDeleted,
  StatementsStored,
  LearnerErased,
  InvitationCreated,
  InvitationChanged,
] as const;
