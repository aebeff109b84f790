import type { StatementSubject } from './launch-statements/scorm-profile';
import type { Cmi5SessionState } from './cmi5-rules';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn } from '../../platform/database/column-transformers';
import type { AdditionalValue } from './launch-links';
import type { HistoryCapture } from '../registrations/launch-history-log';
import type { ExitBehaviour } from './launch-settings';
import type { MediaThresholds } from './player-media';
import type { RollupRules } from './scorm-runtime';
import type { ResetTiming } from './attempt-data';
import type { PlayerClientSettings, TrackingRules } from './tracking-rules';
import type { PlayerUiSettings } from './player-ui';
import type { StoredSessionAuth } from './launch-auth';

/** What a launch link asked for, kept with its session. */
export interface PlayerSessionSettings {
  redirectOnExitUrl: string;
  tracking: boolean;
  startSco?: string;
  culture?: string;
  cssUrl?: string;
  /** `additionalvalues` of the link: appended to the content's launch URL as query parameters. */
  additionalValues?: AdditionalValue[];
  /** A course preview (no registration; registrationId is '' and nothing is recorded): the course version it runs. */
  preview?: { courseId: string; version: number };
  /** Set at launch, changed when the player switches activity: the activity the player runs. */
  activityId?: string;
  /** Set at launch: the instance's commit_seq then; the session's commits count on from it. */
  seqBase?: number;
  /** Set at launch and at each switch: seconds the activity had tracked before it started this time. */
  baseSeconds?: number;
  /** Set at launch and at each switch: seconds of the activity's current attempt before it started this time (cmi.total_time). */
  attemptBaseSeconds?: number;
  /** Set at launch: seconds the whole registration had tracked before this session (the launch history's base). */
  launchBaseSeconds?: number;
  /** Set at launch: the SCORM runtime the activity speaks. */
  standard?: '1.2' | '2004';
  /** Set at launch: the activity's scaled passing score (SCORM 1.2 mastery score / 100). */
  passing?: number;
  /** Set at launch: the rollup rules of the registration instance's effective settings (sessions without: the defaults). */
  rollup?: RollupRules;
  /** Set at launch, SCORM courses: PlayerResetRunTimeData (attempt-data.ts); sessions without wipe nothing. */
  resetRuntime?: ResetTiming;
  /** Set at launch: PlayerLaunchCompletedRegsAsNoCredit applies (the SCOs run with credit no-credit; results stay). */
  noCredit?: true;
  /** Set at launch: how commits turn what the SCO reports into status and score (tracking-rules.ts; sessions without: the defaults). */
  tracked?: TrackingRules;
  /** Set at launch: how the page's SCORM API commits and what it enforces. */
  client?: PlayerClientSettings;
  /** Set at launch: the player UI settings of the registration instance's effective settings (player-ui.ts). */
  ui?: PlayerUiSettings;
  /** Set at launch: whether the registration has a postback URL (its postBack or ApiRollupRegistrationPostBackUrl). */
  postbacks?: boolean;
  /** Set at launch: the course runs through the SCORM 2004 sequencing engine (navigation requests go to the server). */
  sequenced?: boolean;
  /** Sequenced sessions: the course version's content prefix, which keys the cached sequencing definition. */
  seqKey?: string;
  /** Sequenced sessions: the activity resume all delivered last (its SCO starts with cmi.entry "resume"). */
  resumed?: string;
  /** Sequenced sessions that track nothing (previews, tracking off): the engine's state lives with the session. */
  seqState?: string;
  /** AICC courses: the HACP state of the AU running now (its flat SCORM 1.2 data model) and the commits' seq. */
  aicc?: { seq: number; activityId?: string; cmi?: Record<string, string>; completion?: string; exited?: boolean; course?: { registrationCompletion: string; registrationSuccess: string } };
  /** Tracked SCORM sessions: what their xAPI launch statements name (course, activity, learner), as at launch. */
  statements?: StatementSubject;
  /** cmi5 courses: the cmi5 session of the AU running now (cmi5-rules.ts). */
  cmi5?: Cmi5SessionState;
  /** Set at launch (tracked launches whose settings capture history): what the launch's history log records. */
  history?: HistoryCapture;
  /** Set at launch: what the page does when a SCO exits (the Player…ExitAction settings and their kin). */
  exit?: ExitBehaviour;
  /** Set at launch: GenerateTinCanLaunchStatements is false (the session writes no launch statements). */
  statementsOff?: true;
  /** Set at launch: ApiRollupRegistrationDuringSession is false (postbacks only when the learner leaves). */
  postbacksAtExit?: true;
  /** Media courses: MediaContentCompletionThreshold (percent) and PDFContentPageDurationThreshold (seconds). */
  media?: MediaThresholds;
  /** A later launch of the registration took over (concurrent launch detection); `force`: this one is ended. */
  superseded?: { force: boolean };
  /**
   * Set at launch: PlayerRollupRuntimeAtScoUnload is NO: commits do not roll the registration up; navigation
   * requests do, and the page's end-of-session commit (`end`).
   */
  deferRollup?: true;
  /** Set at launch: PlayerInvokeRollupAtSuspendAll is NO (SCORM 2004): a suspend all runs no rollup. */
  noSuspendAllRollup?: true;
  /**
   * PlayerAlwaysFlowToFirstSco NO: the rules delivered nothing at start; the page shows the table of contents and
   * asks the learner to choose (`activityId` names the first launchable, which nothing runs or records).
   */
  undelivered?: true;
}

/** One launch link (id = the token id) and, once used, the player session it opened. */
@Entity('player_session')
export class PlayerSessionEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 191 })
  appId!: string;

  @Column({ type: 'varchar', length: 191 })
  registrationId!: string;

  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'varchar', length: 36, nullable: true })
  launchHistoryId!: string | null;

  @Column({ type: 'datetime', precision: 3 })
  createdAt!: Date;

  /** The link's expiry until it is used; the session's after. */
  @Column({ type: 'datetime', precision: 3 })
  expiresAt!: Date;

  @Column({ type: 'datetime', precision: 3, nullable: true })
  usedAt!: Date | null;

  @Column({ type: 'text', nullable: true, transformer: jsonColumn })
  settings!: PlayerSessionSettings | null;

  /** The link's launchAuth and, once claimed, what the session is bound to (launch-auth.ts); null: no launchAuth. */
  @Column({ type: 'text', nullable: true, transformer: jsonColumn })
  launchAuth!: StoredSessionAuth | null;

  /** Sessions with a slidingExpiry: when the session was last used (updated at most every few seconds). */
  @Column({ type: 'datetime', precision: 3, nullable: true })
  lastSeenAt!: Date | null;
}
