/**
 * The settings a launch reads once (with the rollup and postback ones) and keeps in its player session: what the
 * player does when a SCO exits, whether it writes launch statements, whether it detects a concurrent launch, when
 * postbacks go out, and the thresholds of media courses. Values arrive normalised by the settings service
 * (booleans 'true'/'false', YES/NO settings 'YES'/'NO', enum names).
 */

import type { MediaThresholds } from './player-media';

/** ExitActionValue: what the player does after a SCO exits without a navigation request of its own. */
export const EXIT_ACTIONS = ['EXIT_COURSE', 'EXIT_COURSE_AFTER_CONFIRM', 'GO_TO_NEXT_SCO', 'DISPLAY_MESSAGE', 'DO_NOTHING'] as const;
export type ExitAction = (typeof EXIT_ACTIONS)[number];

const POSITIONS = ['Intermediate', 'Final'] as const;
const STATES = ['Satisfied', 'NotSatisfied'] as const;
const EXITS = ['Normal', 'Suspend', 'Timeout', 'Logout'] as const;

/** The key of an exit action: position, course state and exit kind, e.g. `FinalSatisfiedNormal`. */
export type ExitKey = `${(typeof POSITIONS)[number]}${(typeof STATES)[number]}${(typeof EXITS)[number]}`;

/** The setting id of an exit action (the final SCO's ids say `ScoCourse…`, the intermediate ones `Sco…`). */
const exitSettingId = (position: (typeof POSITIONS)[number], state: (typeof STATES)[number], exit: (typeof EXITS)[number]) =>
  `Player${position}Sco${position === 'Final' ? 'Course' : ''}${state}${exit}ExitAction`;

const EXIT_KEYS: Array<{ key: ExitKey; id: string }> = POSITIONS.flatMap((p) => STATES.flatMap((st) => EXITS.map((e) => ({ key: `${p}${st}${e}`, id: exitSettingId(p, st, e) }))));

/** PlayerReturnToLmsAction values (what the player's Exit button asks of a sequenced course). */
export type ReturnToLmsAction = 'Legacy' | 'SuspendAll' | 'ExitAll' | 'Selectable';

export const LAUNCH_SETTING_IDS = [
  ...EXIT_KEYS.map((k) => k.id),
  'PlayerReturnToLmsAction',
  'PlayerLogoutCausesPlayerExit',
  'RedirectOnExitUrl',
  'GenerateTinCanLaunchStatements',
  'ConcurrentLaunchDetectionEnabled',
  'ConcurrentLaunchDetectionHistoryRows',
  'ForceExitConcurrentLaunches',
  'ApiRollupRegistrationDuringSession',
  'MediaContentCompletionThreshold',
  'PDFContentPageDurationThreshold',
  'PlayerTimeLimit',
  'PlayerRollupRuntimeAtScoUnload',
  'PlayerInvokeRollupAtSuspendAll',
  'PlayerAlwaysFlowToFirstSco',
];

/** What the player page does when a SCO exits (kept with the session, handed to the page). */
export interface ExitBehaviour {
  /** SCORM 1.2 and AICC: the action for each position, course state and cmi.core.exit. */
  actions?: Record<ExitKey, ExitAction>;
  /** SCORM 2004: cmi.exit "logout" without a navigation request closes the player (exit all). */
  logoutExits: boolean;
  returnToLms: ReturnToLmsAction;
  /**
   * PlayerTimeLimit (SCORM and AICC courses), in seconds: the time the registration may spend in the course in all.
   * Once its tracked time reaches it, the page ends the session and the course does not launch again.
   */
  timeLimit?: number;
}

export interface LaunchSettings {
  exit: ExitBehaviour;
  /** RedirectOnExitUrl: where the player goes at the end when the launch link named nowhere. */
  redirectOnExitUrl: string;
  statements: boolean;
  /** Concurrent launch detection: off, or how many recent live sessions it looks at and whether they are ended. */
  concurrent: { rows: number; force: boolean } | null;
  postbacksDuringSession: boolean;
  media: MediaThresholds;
  /** PlayerRollupRuntimeAtScoUnload: a SCO's commits roll the registration up (NO: navigation requests and the session's end do). */
  rollupAtScoUnload: boolean;
  /** PlayerInvokeRollupAtSuspendAll (SCORM 2004): a suspend all runs the Overall Rollup Process. */
  rollupAtSuspendAll: boolean;
  /** PlayerAlwaysFlowToFirstSco (SCORM 2004): when the rules deliver nothing at start, the first activity a choice may select runs. */
  flowToFirstSco: boolean;
}

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined, fallback: T): T => ((allowed as readonly string[]).includes(value ?? '') ? (value as T) : fallback);
const intOf = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) ? n : fallback;
};

/**
 * The launch settings from the effective values of LAUNCH_SETTING_IDS; `runtime`: the SCORM runtime the course runs
 * ('1.2' for SCORM 1.2 and AICC, '2004'), none for xAPI and cmi5 courses.
 */
export function launchSettingsOf(values: ReadonlyMap<string, string>, runtime?: '1.2' | '2004'): LaunchSettings {
  const scorm12 = runtime === '1.2';
  const timeLimit = runtime ? Math.max(0, Math.floor(intOf(values.get('PlayerTimeLimit'), 0))) * 60 : 0;
  const on = (id: string, fallback: boolean) => {
    const v = values.get(id);
    return v === undefined ? fallback : /^(true|yes)$/i.test(v);
  };
  return {
    exit: {
      ...(scorm12 ? { actions: Object.fromEntries(EXIT_KEYS.map(({ key, id }) => [key, oneOf(EXIT_ACTIONS, values.get(id), key.startsWith('Final') ? 'EXIT_COURSE' : 'DISPLAY_MESSAGE')])) as Record<ExitKey, ExitAction> } : {}),
      logoutExits: on('PlayerLogoutCausesPlayerExit', true),
      returnToLms: oneOf(['Legacy', 'SuspendAll', 'ExitAll', 'Selectable'] as const, values.get('PlayerReturnToLmsAction'), 'Legacy'),
      ...(timeLimit > 0 ? { timeLimit } : {}),
    },
    redirectOnExitUrl: (values.get('RedirectOnExitUrl') ?? '').trim(),
    statements: on('GenerateTinCanLaunchStatements', true),
    concurrent: on('ConcurrentLaunchDetectionEnabled', true) ? { rows: Math.max(1, intOf(values.get('ConcurrentLaunchDetectionHistoryRows'), 5)), force: on('ForceExitConcurrentLaunches', false) } : null,
    postbacksDuringSession: on('ApiRollupRegistrationDuringSession', true),
    rollupAtScoUnload: on('PlayerRollupRuntimeAtScoUnload', true),
    rollupAtSuspendAll: on('PlayerInvokeRollupAtSuspendAll', true),
    flowToFirstSco: on('PlayerAlwaysFlowToFirstSco', true),
    media: { completionPercent: Math.min(100, Math.max(0, intOf(values.get('MediaContentCompletionThreshold'), 95))), pdfPageSeconds: Math.max(0, intOf(values.get('PDFContentPageDurationThreshold'), 5)) },
  };
}
