import type { Runtime } from '../registrations/registration-types';
import type { FlatCmi, ScormVersion } from './scorm-runtime';

export type LearnerPreference = NonNullable<Runtime['learnerPreference']>;

/**
 * The learner preference elements of each SCORM version, as LearnerPreferenceSchema names them. SCORM 1.2
 * cmi.student_preference: audio (-1…100), language, speed (-100…100), text (-1, 0, 1); SCORM 2004
 * cmi.learner_preference: audio_level, language, delivery_speed, audio_captioning.
 */
const ELEMENTS: Record<ScormVersion, ReadonlyArray<readonly [keyof LearnerPreference, string]>> = {
  '1.2': [
    ['audioLevel', 'cmi.student_preference.audio'],
    ['language', 'cmi.student_preference.language'],
    ['deliverySpeed', 'cmi.student_preference.speed'],
    ['audioCaptioning', 'cmi.student_preference.text'],
  ],
  '2004': [
    ['audioLevel', 'cmi.learner_preference.audio_level'],
    ['language', 'cmi.learner_preference.language'],
    ['deliverySpeed', 'cmi.learner_preference.delivery_speed'],
    ['audioCaptioning', 'cmi.learner_preference.audio_captioning'],
  ],
};

/** The data model element of the language preference. */
export const languageElement = (version: ScormVersion): string => (version === '1.2' ? 'cmi.student_preference.language' : 'cmi.learner_preference.language');

/**
 * The learner preferences a commit reports, over the stored ones (an element the commit leaves empty keeps its
 * stored value); undefined when neither has any.
 */
export function learnerPreferenceOf(version: ScormVersion, cmi: FlatCmi, previous: LearnerPreference | undefined): LearnerPreference | undefined {
  const out: LearnerPreference = { ...(previous ?? {}) };
  for (const [field, element] of ELEMENTS[version]) {
    const value = cmi[element];
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') continue;
    if (field === 'language') {
      out.language = String(value);
      continue;
    }
    const n = Number(value);
    if (Number.isFinite(n)) out[field] = n;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The data model elements a launch starts with from the stored learner preferences. */
export function learnerPreferenceCmi(version: ScormVersion, stored: LearnerPreference | undefined): FlatCmi {
  const out: FlatCmi = {};
  if (!stored) return out;
  for (const [field, element] of ELEMENTS[version]) {
    const value = stored[field];
    if (value !== undefined && value !== null && value !== '') out[element] = String(value);
  }
  return out;
}
