/**
 * The player page's UI settings (nav bar, table of contents, progress bar, help, windows, lookahead), read once per
 * launch and kept with the session. A setting nobody set keeps the player's own behaviour (the catalogue's defaults
 * are Engine's package-import values, which would hide the nav bar and table of contents of every course):
 * only values set somewhere on the fallback chain change the page (the catalogue's defaults of the lookahead mode
 * and the invalid menu item action, REALTIME and DISABLE, are the player's own).
 */

export const PLAYER_UI_SETTING_IDS = [
  'PlayerShowNavBar',
  'PlayerShowFinishButton',
  'PlayerShowCloseItem',
  'PlayerShowHelp',
  'PlayerShowProgressBar',
  'PlayerUseMeasureProgressBar',
  'PlayerShowTitleBar',
  'PlayerShowCourseStructure',
  'PlayerCourseStructureStartsOpen',
  'PlayerCourseStructureWidth',
  'PlayerEnableFlowNav',
  'PlayerEnableChoiceNav',
  'PlayerInvalidMenuItemAction',
  'PlayerStatusDisplayPreference',
  'PlayerForceDisableRootChoice',
  'PlayerPreventRightClick',
  'PlayerDesiredWidth',
  'PlayerDesiredHeight',
  'PlayerDesiredFullScreen',
  'PlayerRequiredWidth',
  'PlayerRequiredHeight',
  'PlayerRequiredFullScreen',
  'PlayerScoLaunchType',
  'PlayerLookaheadSequencerMode',
] as const;

export type LookaheadMode = 'DISABLED' | 'ENABLED' | 'REALTIME';
export type InvalidMenuItemAction = 'SHOW' | 'HIDE' | 'DISABLE';
export type StatusDisplay = 'SUCCESS_ONLY' | 'COMPLETION_ONLY' | 'SEPARATE' | 'COMBINED' | 'NONE';

/** What the page does; an absent boolean means "the player's default" (see the page). */
export interface PlayerUiSettings {
  navBar?: boolean;
  finishButton?: boolean;
  closeItem?: boolean;
  help?: boolean;
  progressBar?: boolean;
  measureProgressBar?: boolean;
  titleBar?: boolean;
  courseStructure?: boolean;
  structureStartsOpen?: boolean;
  /** px; absent = the page's own width. */
  structureWidth?: number;
  flowNav?: boolean;
  choiceNav?: boolean;
  invalidMenuItem: InvalidMenuItemAction;
  statusDisplay?: StatusDisplay;
  forceDisableRootChoice?: boolean;
  preventRightClick?: boolean;
  desired?: { width: number; height: number; fullScreen: boolean };
  required?: { width: number; height: number; fullScreen: boolean };
  /** PlayerScoLaunchType when set: where each SCO runs (FRAMESET, NEW_WINDOW…). */
  scoLaunchType?: string;
  lookahead: LookaheadMode;
}

/** The player's behaviour for sessions launched before these settings were read. */
export const DEFAULT_PLAYER_UI: PlayerUiSettings = { invalidMenuItem: 'DISABLE', lookahead: 'REALTIME' };

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined): T | undefined => ((allowed as readonly string[]).includes(value ?? '') ? (value as T) : undefined);
const int = (value: string | undefined): number => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** The UI settings of a launch from the settings set somewhere on its fallback chain (their effective values). */
export function playerUiOf(explicit: ReadonlyMap<string, string>): PlayerUiSettings {
  const ui: PlayerUiSettings = {
    invalidMenuItem: oneOf(['SHOW', 'HIDE', 'DISABLE'], explicit.get('PlayerInvalidMenuItemAction')) ?? DEFAULT_PLAYER_UI.invalidMenuItem,
    lookahead: oneOf(['DISABLED', 'ENABLED', 'REALTIME'], explicit.get('PlayerLookaheadSequencerMode')) ?? DEFAULT_PLAYER_UI.lookahead,
  };
  const flags = {
    navBar: 'PlayerShowNavBar',
    finishButton: 'PlayerShowFinishButton',
    closeItem: 'PlayerShowCloseItem',
    help: 'PlayerShowHelp',
    progressBar: 'PlayerShowProgressBar',
    measureProgressBar: 'PlayerUseMeasureProgressBar',
    titleBar: 'PlayerShowTitleBar',
    courseStructure: 'PlayerShowCourseStructure',
    structureStartsOpen: 'PlayerCourseStructureStartsOpen',
    flowNav: 'PlayerEnableFlowNav',
    choiceNav: 'PlayerEnableChoiceNav',
    forceDisableRootChoice: 'PlayerForceDisableRootChoice',
    preventRightClick: 'PlayerPreventRightClick',
  } as const;
  for (const [key, id] of Object.entries(flags) as Array<[keyof typeof flags, string]>) {
    const v = explicit.get(id);
    if (v !== undefined) ui[key] = /^(yes|true)$/i.test(v);
  }
  const width = int(explicit.get('PlayerCourseStructureWidth'));
  if (width) ui.structureWidth = width;
  const status = oneOf(['SUCCESS_ONLY', 'COMPLETION_ONLY', 'SEPARATE', 'COMBINED', 'NONE'], explicit.get('PlayerStatusDisplayPreference'));
  if (status) ui.statusDisplay = status;
  const yes = (id: string) => /^(yes|true)$/i.test(explicit.get(id) ?? '');
  for (const kind of ['Desired', 'Required'] as const) {
    const box = { width: int(explicit.get(`Player${kind}Width`)), height: int(explicit.get(`Player${kind}Height`)), fullScreen: yes(`Player${kind}FullScreen`) };
    if (box.width || box.height || box.fullScreen) ui[kind === 'Desired' ? 'desired' : 'required'] = box;
  }
  const sco = explicit.get('PlayerScoLaunchType');
  if (sco) ui.scoLaunchType = sco;
  return ui;
}
