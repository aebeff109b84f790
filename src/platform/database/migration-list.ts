import { Foundation1763800000000 } from './migrations/1763800000000-foundation';
import { Courses1763900000000 } from './migrations/1763900000000-courses';
import { Registrations1764000000000 } from './migrations/1764000000000-registrations';
import { Lrs1764100000000 } from './migrations/1764100000000-lrs';
import { Player1764200000000 } from './migrations/1764200000000-player';
import { RegistrationPostbacks1764300000000 } from './migrations/1764300000000-registration-postbacks';
import { CourseTitleKey1764400000000 } from './migrations/1764400000000-course-title-key';
import { LrsDocuments1764700000000 } from './migrations/1764700000000-lrs-documents';
import { XapiPipes1764800000000 } from './migrations/1764800000000-xapi-pipes';
import { RegistrationXapiIdIndex1765100000000 } from './migrations/1765100000000-registration-xapi-id-index';
import { SequencingState1765200000000 } from './migrations/1765200000000-sequencing-state';
import { LrsIngestIndexes1765500000000 } from './migrations/1765500000000-lrs-ingest-indexes';
import { XapiReported1766000000000 } from './migrations/1766000000000-xapi-reported';
import { Invitations1767000000000 } from './migrations/1767000000000-invitations';
import { LaunchHistoryLog1766200000000 } from './migrations/1766200000000-launch-history-log';
import { ApplicationAccount1767200000000 } from './migrations/1767200000000-application-account';
import { InvitationJoinedCount1767400000000 } from './migrations/1767400000000-invitation-joined-count';
import { XapiDocumentAgent1767300000000 } from './migrations/1767300000000-xapi-document-agent';
import { ReportSummaries1767500000000 } from './migrations/1767500000000-report-summaries';
import { ReportActivityCounters1767820000000 } from './migrations/1767820000000-report-activity-counters';
import { PlayerLaunchAuth1767830000000 } from './migrations/1767830000000-player-launch-auth';
import { AuditLog1767600000000 } from './migrations/1767600000000-audit-log';
import { Dispatch1767700000000 } from './migrations/1767700000000-dispatch';
import { AiPlugin1767800000000 } from './migrations/1767800000000-ai-plugin';

/** Every migration in order; one list for SQLite and MySQL, for the server, the CLI and ormconfig.ts. */
export const MIGRATIONS = [
  Foundation1763800000000,
  Courses1763900000000,
  Registrations1764000000000,
  Lrs1764100000000,
  Player1764200000000,
  RegistrationPostbacks1764300000000,
  CourseTitleKey1764400000000,
  LrsDocuments1764700000000,
  XapiPipes1764800000000,
  RegistrationXapiIdIndex1765100000000,
  SequencingState1765200000000,
  LrsIngestIndexes1765500000000,
  XapiReported1766000000000,
  LaunchHistoryLog1766200000000,
  Invitations1767000000000,
  ApplicationAccount1767200000000,
  XapiDocumentAgent1767300000000,
  InvitationJoinedCount1767400000000,
  ReportSummaries1767500000000,
  AuditLog1767600000000,
  Dispatch1767700000000,
  AiPlugin1767800000000,
  ReportActivityCounters1767820000000,
  PlayerLaunchAuth1767830000000,
];
