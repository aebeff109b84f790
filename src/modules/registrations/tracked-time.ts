/** The times of a registration's activity tree (timeTracked, HHHH:MM:SS, as SCORM 1.2 writes times): what the registrations module stores and the player computes with. */

/**
 * SCORM 1.2 CMITimespan `HHHH:MM:SS.SS` → seconds; null when malformed. Not a string is malformed too: stored
 * trees written before initialRegistrationState was checked may hold a number here.
 */
export function parseScorm12Time(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{2,4}):(\d{2}):(\d{2}(?:\.\d{1,2})?)$/.exec(value.trim());
  if (!m) return null;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/** Seconds → `HHHH:MM:SS` as the activity tree keeps times ('0000:00:00' when nothing was tracked). */
export function formatTracked(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  return `${pad(Math.floor(s / 3600), 4)}:${pad(Math.floor((s % 3600) / 60), 2)}:${pad(s % 60, 2)}`;
}

/** Parses a stored `HHHH:MM:SS` back to seconds; 0 when absent or unreadable. */
export function trackedSeconds(value: unknown): number {
  return parseScorm12Time(value) ?? 0;
}

/** ISO 8601 duration (SCORM 2004 timeinterval, e.g. PT1H2M3.5S, P1DT2H) → seconds; null when malformed (or not a string). */
export function parseIsoDuration(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m || value.trim() === 'P' || value.trim().endsWith('T')) return null;
  const [, y, mo, d, h, mi, s] = m.map((x) => (x === undefined ? 0 : Number(x)));
  return y * 365 * 86400 + mo * 30 * 86400 + d * 86400 + h * 3600 + mi * 60 + s;
}
