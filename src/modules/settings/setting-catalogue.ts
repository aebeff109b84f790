/*
 * Configuration settings a SCORM Cloud client can set, with their levels, types, defaults and valid values.
 * Generated once from the settings catalogue (groups 1-10: Registration- and Tenant-level ids; Appendix E ids are
 * server-wide and refused), with data types and learning standards as Engine 20.1 reports them. Ids are exact.
 */

/** CourseSchema.courseLearningStandard values a learning-standard bucket can be named by (UNKNOWN excluded). */
export const LEARNING_STANDARDS = ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION', 'AICC', 'XAPI', 'CMI5', 'LTI13'] as const;
export type LearningStandardName = (typeof LEARNING_STANDARDS)[number];

/** Engine's metadata.level: Registration = settable from application down to registration instance; Tenant = application only. */
export type SettingLevel = 'Registration' | 'Tenant';

/**
 * How a value is checked and normalised:
 * - bool: true/false in any case, stored lower case;
 * - yesNo: the Player* package booleans, YES/NO (true/false accepted) in any case, stored upper case;
 * - int: whole number within min..max; double: a number, or empty (nullable);
 * - enum: one of validValues in any case, stored as spelled there; enumList: a comma list of them;
 * - jsonObject / jsonArray: JSON of that shape, or empty; string: any text.
 */
export type SettingKind = 'bool' | 'yesNo' | 'int' | 'double' | 'enum' | 'enumList' | 'jsonObject' | 'jsonArray' | 'string';

export interface SettingValidValue {
  value: string;
  description: string;
}

export interface SettingDefinition {
  id: string;
  /** SettingMetadata.dataType, Engine's name for the type. */
  dataType: string;
  kind: SettingKind;
  /** Effective value when nothing is set at any level. */
  default: string;
  validValues?: readonly SettingValidValue[];
  min?: number;
  max?: number;
  level: SettingLevel;
  /** Omitted when the setting applies to every standard. */
  learningStandards?: readonly LearningStandardName[];
  description: string;
  /** Kept out of GET listings (a postback password); still settable and used. */
  secret?: boolean;
}

const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

function values(descriptions: Record<string, string>): readonly SettingValidValue[] {
  return Object.entries(descriptions).map(([value, description]) => ({ value, description }));
}

const ENUMS = {
  ApiVersion: values({
    v1: 'API V1 body',
    v2: 'API V2 body',
  }),
  CompletionStatusValue: values({
    Unknown: 'Leave completion unknown',
    Completed: 'Mark completed',
    Incomplete: 'Mark incomplete',
    Browsed: 'Mark browsed',
    Not_Attempted: 'Mark not attempted',
  }),
  ExitActionValue: values({
    EXIT_COURSE: 'Close the player',
    EXIT_COURSE_AFTER_CONFIRM: 'Close the player once the learner confirms',
    GO_TO_NEXT_SCO: 'Go on to the next SCO',
    DISPLAY_MESSAGE: 'Show a message to the learner',
    DO_NOTHING: 'Take no action',
  }),
  InternetExplorerCompatibilityModeValue: values({
    NONE: 'Emit no X-UA-Compatible tag',
    EMULATE_IE7: 'X-UA-Compatible IE=EmulateIE7',
    IE7: 'X-UA-Compatible IE=7',
    EMULATE_IE8: 'X-UA-Compatible IE=EmulateIE8',
    IE8: 'X-UA-Compatible IE=8',
    EMULATE_IE9: 'X-UA-Compatible IE=EmulateIE9',
    IE9: 'X-UA-Compatible IE=9',
    EDGE: 'X-UA-Compatible IE=edge',
    IE10: 'X-UA-Compatible IE=10',
  }),
  InvalidMenuItemActionValue: values({
    SHOW: 'Show the item normally',
    HIDE: 'Hide the item',
    DISABLE: 'Show the item greyed out',
  }),
  LaunchAuthType: values({
    cookies: 'Content access through cookies',
    vault: 'Cookieless content access (Content Vault)',
  }),
  LaunchTypeValue: values({
    FRAMESET: 'Open inside the launching page, in a frameset',
    NEW_WINDOW: 'Open in a popup window',
    NEW_WINDOW_AFTER_CLICK: 'Open in a popup window after the learner clicks a link (gets past popup blockers)',
    NEW_WINDOW_WITHOUT_BROWSER_TOOLBAR: 'Open in a popup window without the browser toolbar',
    NEW_WINDOW_AFTER_CLICK_WITHOUT_BROWSER_TOOLBAR: 'Open in a popup window without the browser toolbar, after the learner clicks a link',
  }),
  LookaheadSequencerModeValue: values({
    DISABLED: 'Off',
    ENABLED: 'On',
    REALTIME: 'On, with live status updates',
  }),
  Lti11PrivacySettingValue: values({
    LEARNER_NAME_ONLY: "Send the learner's name only",
    LEARNER_NAME_AND_EMAIL: "Send the learner's name and email",
    NO_LEARNER_INFO: 'Send nothing about the learner',
  }),
  Lti13PrivacySettingValue: values({
    LEARNER_NAME_ONLY: "Send the learner's name only",
    NO_LEARNER_INFO: 'Send nothing about the learner',
  }),
  PostbackAuthType: values({
    form: 'Credentials and data as url-encoded form fields',
    httpbasic: 'Credentials in an Authorization header, data as JSON',
  }),
  PostbackFormat: values({
    course: 'Course summary',
    activity: 'Activity summary',
    full: 'Full results, runtime data included',
  }),
  RegistrationInstanceIncrementTimingValue: values({
    NEVER: 'Never start a new instance',
    WHEN_EXISTING_REG_IS_COMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS: 'When the registration is complete and a newer course version exists',
    WHEN_NEWER_PACKAGE_VERSION_EXISTS: 'When a newer course version exists',
    WHEN_EXISTING_REG_IS_COMPLETE: 'When the registration is complete',
    WHEN_EXISTING_REG_IS_SATISFIED: 'When the registration is satisfied',
    WHEN_EXISTING_REG_IS_SATISFIED_AND_NEWER_PACKAGE_VERSION_EXISTS: 'When the registration is satisfied and a newer course version exists',
    WHEN_EXISTING_REG_IS_INCOMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS: 'When the registration is incomplete and a newer course version exists',
    WHEN_EXISTING_REG_IS_FAILED: 'When the registration is failed',
    WHEN_EXISTING_REG_IS_FAILED_AND_NEWER_PACKAGE_VERSION_EXISTS: 'When the registration is failed and a newer course version exists',
  }),
  ResetRunTimeDataTimingValue: values({
    NEVER: 'Never reset runtime data',
    WHEN_EXIT_IS_NOT_SUSPEND: 'Reset when the previous session did not end with suspend',
    ON_EACH_NEW_SEQUENCING_ATTEMPT: 'Reset on every new sequencing attempt',
  }),
  ReturnToLmsActionValue: values({
    Legacy: 'Behave as older releases did',
    SuspendAll: 'Suspend the attempt and leave',
    ExitAll: 'End the attempt and leave',
    Selectable: 'Let the learner choose between suspending and ending',
  }),
  RsopSynchModeType: values({
    MostRecent: 'Keep the most recent results',
    Simple: 'Merge with the simple rules',
    MostComplete: 'Keep the most complete results',
    MostSatisfied: 'Keep the most satisfied results',
    MostDone: 'Keep the results that got furthest',
    BestDone: 'Keep the best results',
  }),
  ScoreRollupMethodValue: values({
    SCORE_PROVIDED_BY_COURSE: 'Use the score the course reports',
    AVERAGE_SCORE_OF_ALL_UNITS: 'Average over every SCO',
    AVERAGE_SCORE_OF_ALL_UNITS_WITH_SCORES: 'Average over the SCOs that have a score',
    FIXED_AVERAGE: 'Sum of scores divided by PlayerScoreRollupModeNumberOfScoringObjects',
    AVERAGE_SCORE_OF_ALL_UNITS_WITH_NONZERO_SCORES: 'Average over the SCOs with a score other than zero',
    LAST_SCO_SCORE: 'Score of the last SCO',
  }),
  StatusDisplayValue: values({
    SUCCESS_ONLY: 'Show pass/fail only',
    COMPLETION_ONLY: 'Show completion only',
    SEPARATE: 'Show success and completion as two icons',
    COMBINED: 'Show one icon combining success and completion',
    NONE: 'Show no status',
  }),
  StatusRollupMethodValue: values({
    STATUS_PROVIDED_BY_COURSE: 'Use the status the course reports',
    COMPLETE_WHEN_ALL_UNITS_COMPLETE: 'Complete when every SCO is complete',
    COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED: 'Complete when every SCO is complete and none is failed',
    COMPLETE_WHEN_THRESHOLD_SCORE_IS_MET: 'Complete when the threshold score is reached',
    COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_THRESHOLD_SCORE_IS_MET: 'Complete when every SCO is complete and the threshold score is reached',
    COMPLETE_WHEN_ALL_UNITS_ARE_PASSED: 'Complete when every SCO is passed',
  }),
  XapiValidation: values({
    AttachmentContentTransferEncoding: 'Check the Content-Transfer-Encoding of attachments',
    SignatureContentType: 'Check the content type of signatures',
    NoUnexpectedParameters: 'Refuse unexpected query parameters',
    IdenticalDocumentsCanConflict: 'Identical documents can still conflict',
    StatementSchemaValidation: 'Validate statements against the schema',
    StatementSchemaValidationIncludingInteractions: 'Validate statements against the schema, interactions included',
    NewDocumentsRequireETag: 'New documents need an ETag precondition',
  }),
};

export const SETTINGS: readonly SettingDefinition[] = [
  // 1. Player launch and window
  { id: 'PlayerLaunchType', dataType: 'Enum.LaunchTypeValue', kind: 'enum', default: 'FRAMESET', validValues: ENUMS.LaunchTypeValue, level: 'Registration', description: 'Where the whole player opens: inside the launching page (frameset/iframe) or in a popup, optionally behind a click-to-open link.' },
  { id: 'PlayerScoLaunchType', dataType: 'Enum.LaunchTypeValue', kind: 'enum', default: 'NEW_WINDOW', validValues: ENUMS.LaunchTypeValue, level: 'Registration', description: 'Same choice as PlayerLaunchType but for each SCO/AU inside the player; FRAMESET keeps content inside the player frame.' },
  { id: 'PlayerDesiredWidth', dataType: 'nonNegativeInt', kind: 'int', default: '960', min: 0, max: INT32_MAX, level: 'Registration', description: 'Preferred popup/player width in px (0 = no preference).' },
  { id: 'PlayerDesiredHeight', dataType: 'nonNegativeInt', kind: 'int', default: '600', min: 0, max: INT32_MAX, level: 'Registration', description: 'Preferred popup/player height in px (0 = no preference).' },
  { id: 'PlayerDesiredFullScreen', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Hint that the content works best full-screen; player tries to open maximised.' },
  { id: 'PlayerRequiredWidth', dataType: 'nonNegativeInt', kind: 'int', default: '0', min: 0, max: INT32_MAX, level: 'Registration', description: 'Minimum width in px the content needs; player enforces/warns when smaller (0 = none).' },
  { id: 'PlayerRequiredHeight', dataType: 'nonNegativeInt', kind: 'int', default: '0', min: 0, max: INT32_MAX, level: 'Registration', description: 'Minimum height in px the content needs (0 = none).' },
  { id: 'PlayerRequiredFullScreen', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Content must run full-screen to work.' },
  { id: 'PlayerPreventWindowResize', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION', 'AICC'], description: 'Stop the learner resizing the player popup.' },
  { id: 'PlayerWrapScoWindowWithApi', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'When a SCO opens in its own window, wrap it in a shell page carrying a copy of the SCORM API so badly written API-finders still work.' },
  { id: 'PlayerInternetExplorerCompatibilityMode', dataType: 'Enum.InternetExplorerCompatibilityModeValue', kind: 'enum', default: 'NONE', validValues: ENUMS.InternetExplorerCompatibilityModeValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: "Which X-UA-Compatible meta tag (if any) the player's frameset pages emit; legacy IE only." },
  { id: 'UseModernPlayer', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: "Use the responsive 'modern' player (true) or the legacy one; a launch URL parameter can still override." },
  { id: 'DefaultModernPlayerTheme', dataType: 'string', kind: 'string', default: 'default', level: 'Registration', description: 'Deprecated theme name for the modern player; superseded by the stylesheet URL setting.' },
  { id: 'ModernPlayerCustomizationStylesheetUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Extra CSS loaded by the modern player for branding.' },
  { id: 'ModernPlayerCustomizationScriptUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Extra JavaScript loaded by the modern player at start-up.' },
  { id: 'ModernPlayerCustomizationLogo', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Image URL shown as a logo in the modern player.' },
  { id: 'LegacyPlayerCustomizationStylesheetUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Extra CSS loaded by the legacy player.' },
  { id: 'LegacyPlayerCustomizationScriptUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Extra JavaScript loaded by the legacy player.' },
  { id: 'IntermediatePageLoadAtStart', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: "Show the 'loading' intermediate page in the content frame before the first SCO loads." },
  { id: 'RedirectOnExitUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Where the browser goes when the learner leaves the player (the v2 launch-link redirectOnExitUrl feeds this).' },
  { id: 'RedirectLaunchPageOnExit', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'For popup launch types, send the opener page back to the LMS when the player window closes; no effect for frameset.' },
  { id: 'RedirectOnRefreshUrl', dataType: 'webPath', kind: 'string', default: '', level: 'Registration', description: 'Optional page to show if the learner refreshes/back-buttons into the deliver page, instead of relaunching content.' },
  { id: 'RemoteDeliverPageUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Alternative absolute location of the deliver page and player static files (e.g. CDN); needed for LTI 1.3.' },
  { id: 'UseLegacyMobileFramesetBehavior', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'true = old mobile handling (frameset only when forced); false = mobile launches behave like desktop.' },
  { id: 'SuppressNavbarWhenForcedFrameset', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Hide the nav bar when a launch is forced into frameset mode by parameter.' },
  { id: 'ForceFramesetByRegex', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Turn on forcing frameset mode for browsers matching ForceFramesetUserAgentRegex.' }, // inferred
  { id: 'ForceFramesetUserAgentRegex', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'User-agent pattern for which a frameset launch is forced (e.g. mobile browsers that block popups).' }, // inferred
  { id: 'X_SkipLaunchPage', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: "Experimental flag to skip Engine's intermediate launch page." }, // inferred
  { id: 'PromptOnPlayerClose', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Ask the learner to confirm before the player page unloads because the browser window is closing.' },
  { id: 'SupplementalQueryStringParametersForAllActivities', dataType: 'delimitedString', kind: 'string', default: '', level: 'Registration', description: 'Names of extra launch-URL query parameters to pass through to every content page.' },
  { id: 'PrivacyPolicyUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Link to a privacy policy shown by the player.' },
  // 2. Navigation UI and exit behaviour
  { id: 'PlayerShowNavBar', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Show the navigation bar (Prev/Next/Exit etc.). Content that has no exit of its own needs this to trigger final rollup.' },
  { id: 'PlayerShowFinishButton', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: "Show the 'Return to LMS' / finish button." },
  { id: 'PlayerShowCloseItem', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Show a button that closes just the current SCO.' },
  { id: 'PlayerShowHelp', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Show a help button.' },
  { id: 'PlayerShowProgressBar', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Show a course progress bar.' },
  { id: 'PlayerUseMeasureProgressBar', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Drive the progress bar from measure (progress) rollup instead of counting completed SCOs.' },
  { id: 'PlayerShowTitleBar', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Show a title bar with the package name.' },
  { id: 'PlayerShowCourseStructure', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION', 'AICC', 'CMI5'], description: 'Show the course outline / table of contents.' },
  { id: 'PlayerCourseStructureStartsOpen', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION', 'AICC', 'CMI5'], description: 'Outline starts expanded (only when the outline is shown).' },
  { id: 'PlayerCourseStructureWidth', dataType: 'nonNegativeInt', kind: 'int', default: '0', min: 0, max: INT32_MAX, level: 'Registration', description: 'Outline width in px, legacy player only.' },
  { id: 'PlayerEnableFlowNav', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC', 'CMI5'], description: 'Allow Previous/Next navigation between SCOs (non-2004 content; 2004 uses manifest sequencing).' },
  { id: 'PlayerEnableChoiceNav', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC', 'CMI5'], description: 'Allow jumping to any item from the outline (non-2004 content).' },
  { id: 'PlayerInvalidMenuItemAction', dataType: 'Enum.InvalidMenuItemActionValue', kind: 'enum', default: 'DISABLE', validValues: ENUMS.InvalidMenuItemActionValue, level: 'Registration', description: 'How outline entries that cannot currently be launched are shown: enabled, hidden or greyed out.' },
  { id: 'PlayerStatusDisplayPreference', dataType: 'Enum.StatusDisplayValue', kind: 'enum', default: 'COMBINED', validValues: ENUMS.StatusDisplayValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'Which status icons the outline shows per SCO: success, completion, both separately, combined, or none.' },
  { id: 'PlayerReturnToLmsAction', dataType: 'Enum.ReturnToLmsActionValue', kind: 'enum', default: 'Legacy', validValues: ENUMS.ReturnToLmsActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: "What 'Return to LMS' does: legacy behaviour, suspend-all, exit-all, or let the learner pick." },
  { id: 'PlayerForceDisableRootChoice', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Disable choosing the root item in the outline so a learner cannot start a fresh course attempt that way.' },
  { id: 'PlayerLogoutCausesPlayerExit', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'In SCORM 2004, treat cmi.exit = logout as a request to close the whole player.' },
  { id: 'PlayerFinalScoCourseNotSatisfiedTimeoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (not satisfied) exits with cmi.core.exit=time-out.' },
  { id: 'PlayerIntermediateScoNotSatisfiedNormalExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (not satisfied) exits normally (cmi.core.exit empty).' },
  { id: 'PlayerFinalScoCourseSatisfiedSuspendExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (course satisfied) exits with cmi.core.exit=suspend.' },
  { id: 'PlayerFinalScoCourseSatisfiedTimeoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (course satisfied) exits with cmi.core.exit=time-out.' },
  { id: 'PlayerIntermediateScoSatisfiedNormalExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (course satisfied) exits normally (cmi.core.exit empty).' },
  { id: 'PlayerIntermediateScoNotSatisfiedTimeoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (not satisfied) exits with cmi.core.exit=time-out.' },
  { id: 'PlayerFinalScoCourseNotSatisfiedSuspendExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (not satisfied) exits with cmi.core.exit=suspend.' },
  { id: 'PlayerIntermediateScoSatisfiedSuspendExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (course satisfied) exits with cmi.core.exit=suspend.' },
  { id: 'PlayerFinalScoCourseSatisfiedLogoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (course satisfied) exits with cmi.core.exit=logout.' },
  { id: 'PlayerFinalScoCourseNotSatisfiedLogoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (not satisfied) exits with cmi.core.exit=logout.' },
  { id: 'PlayerIntermediateScoSatisfiedTimeoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (course satisfied) exits with cmi.core.exit=time-out.' },
  { id: 'PlayerIntermediateScoSatisfiedLogoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (course satisfied) exits with cmi.core.exit=logout.' },
  { id: 'PlayerFinalScoCourseNotSatisfiedNormalExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (not satisfied) exits normally (cmi.core.exit empty).' },
  { id: 'PlayerIntermediateScoNotSatisfiedLogoutExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (not satisfied) exits with cmi.core.exit=logout.' },
  { id: 'PlayerIntermediateScoNotSatisfiedSuspendExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'DISPLAY_MESSAGE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when a middle SCO (not satisfied) exits with cmi.core.exit=suspend.' },
  { id: 'PlayerFinalScoCourseSatisfiedNormalExitAction', dataType: 'Enum.ExitActionValue', kind: 'enum', default: 'EXIT_COURSE', validValues: ENUMS.ExitActionValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12'], description: 'What the player does next when last SCO (course satisfied) exits normally (cmi.core.exit empty).' },
  // 3. Runtime data and commit
  { id: 'PlayerCommCommitFrequency', dataType: 'nonNegativeInt', kind: 'int', default: '10000', min: 0, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Interval in ms at which the player pushes changed runtime data to the server.' },
  { id: 'PlayerCommMaxFailedSubmissions', dataType: 'nonNegativeInt', kind: 'int', default: '2', min: 0, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'How many failed commits are tolerated before the player stops and tells the learner.' },
  { id: 'PlayerFinishCausesImmediateCommit', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Commit at once when the SCO calls LMSFinish/Terminate instead of waiting for the next interval.' },
  { id: 'PlayerSuspendDataMaxLength', dataType: 'nonNegativeInt', kind: 'int', default: '4096', min: 0, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Largest suspend_data the player accepts, in bytes/characters.' },
  { id: 'PlayerValidateInteractionResponses', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Check interaction responses against the SCORM format; turn off to allow free text in SCORM 1.2 responses.' },
  { id: 'PlayerResetRunTimeData', dataType: 'Enum.ResetRunTimeDataTimingValue', kind: 'enum', default: 'WHEN_EXIT_IS_NOT_SUSPEND', validValues: ENUMS.ResetRunTimeDataTimingValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'When runtime (cmi) data is wiped for a relaunch: never, when the last exit was not suspend, or on every new sequencing attempt.' },
  { id: 'PlayerLaunchCompletedRegsAsNoCredit', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC'], description: 'Relaunch of a completed SCORM 1.2/AICC registration runs in no-credit mode so results are not changed.' },
  { id: 'PlayerAllowCompleteStatusChange', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC'], description: 'Let a SCORM 1.2/AICC lesson status move away from complete once it has been set.' },
  { id: 'PlayerMakeStudentPrefsGlobalToCourse', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Learner preferences (audio level, language, ...) set in one SCO apply to all SCOs.' },
  { id: 'PlayerTimeLimit', dataType: 'nonNegativeInt', kind: 'int', default: '0', min: 0, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Course time limit in minutes; 0 = unlimited.' },
  { id: 'PlayerCaptureHistory', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', description: 'Send attempt history (launch history) back to the server.' },
  { id: 'PlayerCaptureHistoryDetailed', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Send detailed attempt history back to the server.' },
  { id: 'MaxPersistRuntimeDataAttempts', dataType: 'positiveInt', kind: 'int', default: '1', min: 1, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Server-side retries when saving runtime data.' },
  { id: 'RecordResultsMaxPayloadSizeInBytes', dataType: 'nonNegativeInt', kind: 'int', default: '5242880', min: 0, max: INT32_MAX, level: 'Registration', description: 'Largest commit (RecordResults) request the server accepts before erroring.' },
  { id: 'UseDeltaRecordResultsPayload', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Commits carry only what changed since the last successful commit.' },
  { id: 'CompressRecordResultsPayload', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Commits are LZ-string compressed by the player.' },
  { id: 'PreferSendBeacon', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Use navigator.sendBeacon for the final commit on page unload.' }, // inferred
  { id: 'PlayerIsAvailableOffline', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Package may be downloaded and taken offline.' },
  { id: 'PlayerOfflineSynchMode', dataType: 'Enum.RsopSynchModeType', kind: 'enum', default: 'Simple', validValues: ENUMS.RsopSynchModeType, level: 'Registration', description: 'How offline and online results are merged when an offline copy syncs back (V1 rsopSynchMode).' }, // inferred
  // 4. Rollup and status
  { id: 'PlayerStatusRollupModeValue', dataType: 'Enum.StatusRollupMethodValue', kind: 'enum', default: 'COMPLETE_WHEN_ALL_UNITS_COMPLETE_AND_NOT_FAILED', validValues: ENUMS.StatusRollupMethodValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'How SCO completion rolls up to course completion for non-2004 content (provided by course, all complete, all complete and not failed, threshold score, ...).' },
  { id: 'PlayerStatusRollupModeThresholdScore', dataType: 'nullableDouble', kind: 'double', default: '0', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'Score needed when the status rollup mode uses a threshold.' },
  { id: 'PlayerApplyRollupStatusToSuccess', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'Also derive course pass/fail from the simple rollup rules.' },
  { id: 'PlayerCompletionStatOfFailedSuccessStat', dataType: 'Enum.CompletionStatusValue', kind: 'enum', default: 'Unknown', validValues: ENUMS.CompletionStatusValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC'], description: 'Completion to force when success is failed (only completed/incomplete are acted on).' },
  { id: 'PlayerScoreOverridesStatus', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'AICC'], description: 'Status derived from score (mastery score) wins over the status the SCO reported.' },
  { id: 'PlayerFirstScoIsPretest', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'Passing the first SCO marks the remaining SCOs complete.' },
  { id: 'PlayerRollupEmptySetToUnknown', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'SCORM 2004: children that all contribute nothing roll up as unknown rather than complete/satisfied.' },
  { id: 'PlayerSatisfiedCausesCompletion', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'SCORM 2004: an activity that becomes satisfied is also marked complete.' },
  { id: 'PlayerInvokeRollupAtSuspendAll', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'SCORM 2004: run rollup when the learner suspends all.' },
  { id: 'PlayerRollupRuntimeAtScoUnload', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Run rollup and send runtime data whenever any SCO unloads.' },
  { id: 'PlayerIsCompletionTracked', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Declares whether the package reports completion meaningfully (used for reporting).' },
  { id: 'PlayerIsSatisfactionTracked', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Declares whether the package reports pass/fail meaningfully.' },
  { id: 'PlayerIsIncompleteSatisfactionMeaningful', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Whether pass/fail is still meaningful while the course is incomplete.' },
  // 5. Scoring
  { id: 'PlayerScoreRollupModeValue', dataType: 'Enum.ScoreRollupMethodValue', kind: 'enum', default: 'AVERAGE_SCORE_OF_ALL_UNITS_WITH_SCORES', validValues: ENUMS.ScoreRollupMethodValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'How SCO scores roll up to the course score for non-2004 content (course score, averages, fixed average, last SCO).' },
  { id: 'PlayerScoreRollupModeNumberOfScoringObjects', dataType: 'int', kind: 'int', default: '0', min: INT32_MIN, max: INT32_MAX, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'CMI5'], description: 'Divisor used by the FIXED_AVERAGE score rollup.' },
  { id: 'PlayerScaleRawScore', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'SCORM 2004: if only a raw score is set, use it as the normalised score.' },
  { id: 'PlayerIsScoreTracked', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Declares whether the package reports a meaningful score.' },
  { id: 'PlayerIsIncompleteScoreMeaningful', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Whether the score is still meaningful while the course is incomplete.' },
  // 6. Sequencing
  { id: 'PlayerForceObjectiveCompletionSetByContent', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: "Force the manifest flags 'objective set by content' and 'completion set by content' to true." },
  { id: 'PlayerLookaheadSequencerMode', dataType: 'Enum.LookaheadSequencerModeValue', kind: 'enum', default: 'REALTIME', validValues: ENUMS.LookaheadSequencerModeValue, level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Client-side lookahead sequencer that pre-computes which nav controls/outline items are valid: off, on, or on with live status updates.' },
  { id: 'PlayerUseQuickLookaheadSequencer', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'SCORM 2004 4th ed.: use the faster lookahead sequencer.' },
  { id: 'PlayerAlwaysFlowToFirstSco', dataType: 'bool', kind: 'yesNo', default: 'YES', level: 'Registration', learningStandards: ['SCORM11', 'SCORM12', 'SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'On launch, always open the first SCO even when sequencing rules would not start there.' },
  // 7. Postback
  { id: 'ApiRollupRegistrationPostBackUrl', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'URL that receives registration results when they change (postback / webhook). Empty = no postbacks.' },
  { id: 'ApiRollupRegistrationAuthType', dataType: 'string', kind: 'enum', default: 'form', validValues: ENUMS.PostbackAuthType, level: 'Registration', description: "How postback credentials are sent: 'form' (url-encoded fields incl. data=JSON) or 'httpbasic' (Authorization header, JSON body)." },
  { id: 'ApiRollupRegistrationAuthUser', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'User name sent with postbacks.' },
  { id: 'ApiRollupRegistrationAuthPassword', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Password sent with postbacks. Kept out of listings.', secret: true }, // inferred
  { id: 'ApiRollupRegistrationFormat', dataType: 'string', kind: 'enum', default: 'activity', validValues: ENUMS.PostbackFormat, level: 'Registration', description: 'Detail level of the postback body: course summary, activity summary, or full (incl. runtime).' },
  { id: 'ApiRollupRegistrationDuringSession', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Send postbacks while the learner is still in the course, not only after exit.' },
  { id: 'ApiRollupRegistrationSynchronous', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'First postback attempt happens synchronously as the course completes.' },
  { id: 'ApiRollupRegistrationIsJson', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Send postback data as JSON. Seen in one public integration only; not in Engine metadata.' }, // inferred
  { id: 'TinCanInteractionsEnabled', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: "Pull interaction details out of certain xAPI statements into progress data and 'full' postbacks." },
  { id: 'ApiPostbackDataModelVersion', dataType: 'Enum.ApiVersion', kind: 'enum', default: 'v2', validValues: ENUMS.ApiVersion, level: 'Tenant', description: "Which API version's schema shapes the postback body (v1 XML-era or v2 JSON)." },
  { id: 'ApiPostbackTimeoutSeconds', dataType: 'int', kind: 'int', default: '10', min: INT32_MIN, max: INT32_MAX, level: 'Tenant', description: 'HTTP timeout for each postback request.' },
  { id: 'ApiTokenPostbackValidHours', dataType: 'int', kind: 'int', default: '24', min: INT32_MIN, max: INT32_MAX, level: 'Tenant', description: 'Lifetime of the token that authenticates runtime posts when signed launch links are on.' },
  { id: 'WebHookCustomUserAgent', dataType: 'string', kind: 'string', default: '', level: 'Tenant', description: 'User-Agent header sent on webhook/postback requests.' },
  // 8. xAPI, cmi5 and media content
  { id: 'UsePlayerForTinCanLaunches', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: "Launch xAPI (tincan.xml) packages inside Engine's player instead of opening the content directly." },
  { id: 'GenerateTinCanLaunchStatements', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: "Write a 'launched' statement for each xAPI launch." },
  { id: 'Cmi5EntitlementKeyAlternate', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Value passed to cmi5 AUs as the alternate entitlement key in LMS.LaunchData.' },
  { id: 'xAPIRewriteStatementModifier', dataType: 'mergedJson', kind: 'jsonObject', default: '', level: 'Registration', description: 'JSON overlays merged into statements returned when a client asks for rewriting (rusticiRewrite=true); merged across levels.' },
  { id: 'MediaContentCompletionThreshold', dataType: 'nonNegativeInt', kind: 'int', default: '95', min: 0, max: INT32_MAX, level: 'Registration', description: 'Percent of a media file that must be played before an imported media course counts as complete.' },
  { id: 'PDFContentPageDurationThreshold', dataType: 'nonNegativeInt', kind: 'int', default: '5', min: 0, max: INT32_MAX, level: 'Registration', description: 'Seconds a PDF page must be viewed before it counts toward progress.' },
  { id: 'MediaContentStylesheetPath', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'CSS for the built-in media-content AU (all media types).' },
  { id: 'AudioVideoContentStylesheetPath', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'CSS for the media AU, audio/video specific parts.' },
  { id: 'PDFContentStylesheetPath', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'CSS for the media AU, PDF specific parts.' },
  { id: 'ContentLangToUrl', dataType: 'languageList', kind: 'jsonArray', default: '[]', level: 'Registration', description: 'JSON list of caption/subtitle tracks (.vtt) for media content.' },
  { id: 'WebContentForceNewWindow', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Open imported web-page content in a new tab instead of inside the AU (for sites that refuse framing).' },
  { id: 'MediaContentPathReplacementRegex', dataType: 'string', kind: 'string', default: '', level: 'Registration', description: 'Rewrite rule applied to media-content file paths.' }, // inferred
  { id: 'UseStatementTimestampInRegistrationUpdates', dataType: 'bool', kind: 'bool', default: 'true', level: 'Tenant', description: 'Use the xAPI statement timestamp (not processing time) for first-access/completed dates.' },
  { id: 'xAPIValidations', dataType: 'DelimitedEnum.XapiValidation', kind: 'enumList', default: 'AttachmentContentTransferEncoding, SignatureContentType, NoUnexpectedParameters, IdenticalDocumentsCanConflict, StatementSchemaValidation, StatementSchemaValidationIncludingInteractions, NewDocumentsRequireETag', validValues: ENUMS.XapiValidation, level: 'Tenant', description: 'Which newer xAPI conformance checks the LRS enforces.' },
  { id: 'xAPIMaxSizeForDatabaseInBytes', dataType: 'nonNegativeInt', kind: 'int', default: '64000', min: 0, max: INT32_MAX, level: 'Tenant', description: 'Documents/attachments larger than this go to the file store instead of the DB.' },
  // 9. Registration instancing
  { id: 'WhenToRestartRegistration', dataType: 'Enum.RegistrationInstanceIncrementTimingValue', kind: 'enum', default: 'WHEN_EXISTING_REG_IS_COMPLETE_AND_NEWER_PACKAGE_VERSION_EXISTS', validValues: ENUMS.RegistrationInstanceIncrementTimingValue, level: 'Registration', description: 'When launching a registration creates a new instance (restart): never, on newer course version, on complete/satisfied/failed, or combinations.' },
  { id: 'AssignLatestVersionInsteadOfRestartRegistration', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Move the existing registration onto the newest course version instead of creating a new instance.' }, // inferred
  // 10. Security, launch auth, debugging, LTI and misc
  { id: 'PlayerPreventRightClick', dataType: 'bool', kind: 'yesNo', default: 'NO', level: 'Registration', description: 'Block the context menu inside player frames (light deterrent against viewing source).' },
  { id: 'ContentVaultEnabled', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Authorise content requests without third-party cookies (Content Vault).' },
  { id: 'ContentVaultAuthExpiry', dataType: 'int', kind: 'int', default: '2880', min: 300, max: 31540000, level: 'Registration', description: "Seconds a launch's content authorisation stays valid (300..31540000)." },
  { id: 'ContentVaultSlidingAuthExpiryEnabled', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Use a sliding window that is extended by each content request.' },
  { id: 'ContentVaultSlidingAuthExpiry', dataType: 'int', kind: 'int', default: '60', min: 60, max: 31540000, level: 'Registration', description: 'Length of that sliding window in seconds (60..31540000).' },
  { id: 'ContentVaultIpAddressValidationEnabled', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Tie content access to the launching IP address.' },
  { id: 'ContentVaultAuthFingerprintValidationEnabled', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Tie content access to the launching browser fingerprint (user agent).' },
  { id: 'ContentVaultPathModifyingPrefix', dataType: 'string', kind: 'string', default: '/vault', level: 'Registration', description: 'URL prefix the Content Vault plugin adds to content paths.' },
  { id: 'ConcurrentLaunchDetectionEnabled', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Detect a second simultaneous launch of the same registration.' },
  { id: 'ConcurrentLaunchDetectionHistoryRows', dataType: 'positiveInt', kind: 'int', default: '5', min: 1, max: INT32_MAX, level: 'Registration', description: 'How many launch-history rows are checked for that detection.' },
  { id: 'ForceExitConcurrentLaunches', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: "End the earlier launch silently instead of showing the 'already launched' page." },
  { id: 'EnableClientDebugger', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Let the learner open the player debugger (and offer it after errors).' },
  { id: 'StorePlayerDebugLogsInFileStoreOnExit', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Save player debug logs to the configured file store when the player exits.' },
  { id: 'PlayerDebugIncludeTimestamps', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Add timings to debug log entries.' },
  { id: 'Lti11PrivacySettings', dataType: 'Enum.Lti11PrivacySettingValue', kind: 'enum', default: 'LEARNER_NAME_ONLY', validValues: ENUMS.Lti11PrivacySettingValue, level: 'Registration', description: 'Learner data sent on LTI 1.1 launches (name only, name+email, nothing).' },
  { id: 'Lti11Roles', dataType: 'string', kind: 'string', default: 'Learner', level: 'Registration', description: 'Roles string sent on LTI 1.1 launches.' },
  { id: 'Lti13PrivacySettings', dataType: 'Enum.Lti13PrivacySettingValue', kind: 'enum', default: 'LEARNER_NAME_ONLY', validValues: ENUMS.Lti13PrivacySettingValue, level: 'Registration', description: 'Learner data sent on LTI 1.3 launches (name only, nothing).' },
  { id: 'Lti13Roles', dataType: 'delimitedString', kind: 'string', default: 'http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student', level: 'Registration', description: 'Role URIs sent in the LTI 1.3 roles claim.' },
  { id: 'DispatchPollingFrequency', dataType: 'string', kind: 'string', default: '1500', level: 'Registration', description: 'Polling interval (ms) used by dispatch (remote) launches to talk to the hosting server.' }, // inferred
  { id: 'DispatchHideGetRegistrationErrorDuringTeardown', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Suppress a registration-fetch error shown while a dispatched launch is closing.' }, // inferred
  { id: 'ApiCourseDeleteAttemptDeleteFiles', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', description: 'Deleting a course via the API also tries to delete its files.' },
  { id: 'PlayerDebugLookAheadAudit', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Player debugger records lookahead sequencer at audit level.' },
  { id: 'PlayerDebugControlDetailed', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records player control/navigation logic at detailed level.' },
  { id: 'PlayerDebugSequencingAudit', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records sequencing engine at audit level.' },
  { id: 'PlayerDebugLookAheadDetailed', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', learningStandards: ['SCORM20042NDEDITION', 'SCORM20043RDEDITION', 'SCORM20044THEDITION'], description: 'Player debugger records lookahead sequencer at detailed level.' },
  { id: 'PlayerDebugSequencingDetailed', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records sequencing engine at detailed level.' },
  { id: 'PlayerDebugRteDetailed', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records runtime (API call) data at detailed level.' },
  { id: 'PlayerDebugRteAudit', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records runtime (API call) data at audit level.' },
  { id: 'PlayerDebugControlAudit', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', description: 'Player debugger records player control/navigation logic at audit level.' },
  { id: 'PlayerDebugSequencingSimple', dataType: 'bool', kind: 'bool', default: 'true', level: 'Registration', learningStandards: ['SCORM20044THEDITION'], description: 'Player debugger records sequencing engine at simplified readable level.' },
  { id: 'ApiUseSignedLaunchLinks', dataType: 'bool', kind: 'bool', default: 'false', level: 'Tenant', description: 'Only accept launch links that the API signed.' },
  { id: 'ExpireLaunchHistoryAfterDays', dataType: 'positiveInt', kind: 'int', default: '30', min: 1, max: INT32_MAX, level: 'Tenant', description: 'Minimum age in days before launch-history rows may be purged.' },
  { id: 'ShouldExpireLaunchHistory', dataType: 'bool', kind: 'bool', default: 'false', level: 'Tenant', description: 'Purge old launch-history rows while writing new ones.' },
  { id: 'ValidateManifestsUsingXsd', dataType: 'bool', kind: 'bool', default: 'true', level: 'Tenant', description: 'Also validate imsmanifest.xml against the XSDs at import.' },
  { id: 'HashContentFilesForActivityId', dataType: 'bool', kind: 'bool', default: 'true', level: 'Tenant', description: "Derive a package's activity id from a hash of all files (true) or just the manifest (false)." },
  { id: 'EnableExistingActivityIdParserWarnings', dataType: 'bool', kind: 'bool', default: 'true', level: 'Tenant', description: 'Warn at import when activity ids already belong to another package or appear in the LRS.' },
  { id: 'LtiJsonWebTokenExpiry', dataType: 'positiveInt', kind: 'int', default: '300', min: 1, max: INT32_MAX, level: 'Tenant', description: 'Seconds until JWTs issued during LTI launches expire.' },
  { id: 'LaunchAuthType', dataType: 'string', kind: 'enum', default: 'cookies', validValues: ENUMS.LaunchAuthType, level: 'Registration', description: 'SCORM Cloud content-access mode: signed CloudFront cookies (default) or cookieless Content Vault.' },
  // LCDS's own settings (no SCORM Cloud counterpart).
  { id: 'LcdsCmi5StrictMode', dataType: 'bool', kind: 'bool', default: 'false', level: 'Registration', learningStandards: ['CMI5'], description: "cmi5: also refuse what the AU breaks of its own obligations that cmi5 does not let an LMS refuse (e.g. initialized before reading cmi5LearnerPreferences); off, such lapses are accepted and recorded in the launch's history log. For AU developers." },
];

/** Engine ids that are server-wide or infrastructure only (Appendix E): never settable through the API. */
export const ENGINE_ONLY_SETTING_IDS: ReadonlySet<string> = new Set([
  'AiccSessionPerLaunch', 'AllowedRequests', 'AllowedTenantNameRegex', 'AllowedTenantNames',
  'ApiAlternateIdDelimiter', 'ApiBasicSystemAccounts', 'ApiBasicTenantAccounts', 'ApiDoNotCheckAuthentication',
  'ApiEnableV1', 'ApiEnableV2', 'ApiIndentJson', 'ApiMaxAuthTokenLifetimeSeconds',
  'ApiPingCheckDatabase', 'ApiPostbackProcessorMaxBatchSize', 'ApiPostbackProcessorSleepSeconds', 'ApiResultLimit',
  'ApiResultLimitSinceNotSpecified', 'ApiRoot', 'AttemptInsertBeforeUpsert', 'ConfigurationCacheMaxEntries',
  'ConfigurationCacheSeconds', 'ConfigurationEncryptionExceptions', 'ContentAuthCookieFactory', 'ContentConnectorRemoteSearchTimeoutMS',
  'DataPersistenceEngine', 'DatabaseRetryCount', 'DatabaseSchema', 'DatabaseTimeoutSeconds',
  'DefaultCommCommitFrequency', 'DefaultImportRedirectLocation', 'EnableRecordingMetrics', 'EncryptConfigurationSettings',
  'EncryptionPassword', 'Encryptor', 'FilePathToContentRoot', 'FilePathToUploadedZippedPackage',
  'ForwardedHost', 'ForwardedProtocol', 'Go1ApiKey', 'Go1PartnerPortalId',
  'HashAccountPasswords', 'ImportLinkLocation', 'LrsAuthCacheSecondsFailure', 'LrsAuthCacheSecondsSuccess',
  'LrsAuthCallbackMaxCacheSize', 'LtiBaseUrl', 'LtiConsumerDescription', 'LtiConsumerEmail',
  'LtiConsumerIdentifier', 'LtiConsumerName', 'LtiConsumerProductFamily', 'LtiConsumerUrl',
  'LtiConsumerVersion', 'LtiPlatformIssuer', 'ManifestDirPathAcceptedRegex', 'MaxParametersPerDatabaseUpsert',
  'MaxPersistableStringLength', 'MaxRowsPerDatabaseUpsert', 'MaxUpsertSizeInBytes', 'OfflineContentPathAcceptedRegex',
  'OfflinePathToContentRoot', 'OfflineZipOutputLocation', 'PlayerDebugLogsStorageLocation', 'Plugins',
  'PreviousEncryptionPassword', 'PreviousEncryptor', 'ReadReplicaMaximumExpectedLagMS', 'RedactLogs',
  'RedactedItems', 'RedactedTables', 'RusticiEngineScriptsUrl', 'RusticiEngineUrl',
  'SQLDebugLogMinimumExecutionMS', 'SSPEnabled', 'SimpleQueueMaxTries', 'SimpleQueueRetryInitialDelaySeconds',
  'StoreRuntimeDataAsLob', 'SystemDatabaseEnabled', 'SystemHomepageUrl', 'TenancyEnabled',
  'TenantIdLength', 'TenantSettingSyntaxEnabled', 'UnRedactedColumns', 'UpdateRunTimeDataLockExpireSeconds',
  'UpdateRunTimeDataLockWaitSeconds', 'UseNativePostgreSqlUpserts', 'UseSystemDatabaseForTenantSettings', 'UserCountReportContractPeriodEndDate',
  'UserCountReportCustomerId', 'UserCountReportDaysBetweenReports', 'UserCountReportEnabled', 'UserCountReportLookBackDays',
  'UserCountReportMaxOffsetMS', 'UserCountReportTargetUrl', 'WebPathToContentRoot', 'WebPathToContentRootHistory',
  'xAPIBasicAccounts', 'xAPIEnablePublicEndpoint', 'xAPIEnabled', 'xAPIFilesPath',
  'xAPILargeAttachmentsPath', 'xAPILargeDocumentsPath', 'xAPILaunchTokenCleanupIntervalInSeconds', 'xAPILaunchTokenLifeInSeconds',
  'xAPILaunchTokenUpdateLifeInSeconds', 'xAPIMaxRequestSizeInBytes', 'xAPIObjectStoreRepairs', 'xAPIPostProcessContextParameters',
  'xAPIStatementPipeBatchSize', 'xAPIStatementPipeCooldownMilliseconds', 'xAPIStatementPipeEnabled', 'xAPIStatementPipeLockTimeSeconds',
  'xAPIStatementPipeMaxBackoffHours', 'xAPIStatementPipeSleepTimeMilliseconds', 'xAPIStatementPipeWebTimeoutMilliseconds', 'xAPIUrl',
  'xAPIUrlPrefix',
]);
