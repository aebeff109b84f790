import type { FlatCmi } from './scorm-runtime';

/**
 * SCORM 1.2 RTE 3.4.4 (cmi.core.lesson_status, "additional behavior requirements", p. 3-25): a SCO need not set
 * lesson_status; when it finishes (LMSFinish, or the learner navigates away) with the status still "not attempted",
 * the LMS sets it to "completed" ("browsed" in browse mode), and then the mastery score, if any, decides passed or
 * failed from the raw score (activityStateOf does that for a completed status). The player applies it to a
 * session's final commit of a SCORM 1.2 activity; any status the SCO set stays as it is.
 */
export function scorm12FinishedCmi(cmi: FlatCmi): FlatCmi {
  const status = cmi['cmi.core.lesson_status'];
  if (status !== undefined && status !== null && status !== '' && status !== 'not attempted') return cmi;
  return { ...cmi, 'cmi.core.lesson_status': cmi['cmi.core.lesson_mode'] === 'browse' ? 'browsed' : 'completed' };
}
