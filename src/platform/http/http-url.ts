/** Validates an absolute http(s) URL; returns an error message or null. */
export function httpUrlProblem(value: string, field: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `${field} must be an absolute http or https URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${field} must be an absolute http or https URL`;
  return null;
}
