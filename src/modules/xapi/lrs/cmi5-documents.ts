/** The cmi5 rules of the documents an AU may write with its launch token (cmi5 spec 11). */
export const LEARNER_PREFERENCES = 'cmi5LearnerPreferences';

const LANGUAGE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

/** Why a cmi5LearnerPreferences document is not acceptable (cmi5 11.0.0.0-5, 11.1.0.0-1), or null. */
export function learnerPreferencesProblem(contentType: string, content: Buffer): string | null {
  if (!/^application\/json\b/i.test(contentType)) return 'cmi5LearnerPreferences must be a JSON document (cmi5 11.0.0.0-5)';
  let doc: unknown;
  try {
    doc = JSON.parse(content.toString('utf8'));
  } catch {
    return 'cmi5LearnerPreferences is not valid JSON (cmi5 11.0.0.0-5)';
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'cmi5LearnerPreferences must be a JSON object (cmi5 11.0.0.0-5)';
  const { languagePreference, audioPreference } = doc as { languagePreference?: unknown; audioPreference?: unknown };
  if (typeof languagePreference !== 'string') return 'cmi5LearnerPreferences needs languagePreference (cmi5 11.0.0.0-5)';
  if (audioPreference !== 'on' && audioPreference !== 'off') return 'cmi5LearnerPreferences needs audioPreference "on" or "off" (cmi5 11.0.0.0-5)';
  if (!languagePreference.split(',').every((tag) => LANGUAGE_TAG.test(tag))) return 'languagePreference must be a comma-separated list of RFC 5646 language tags (cmi5 11.1.0.0-1)';
  return null;
}
