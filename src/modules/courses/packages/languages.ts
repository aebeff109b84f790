/** Collecting `courseLanguages` from langstrings and xml:lang attributes. */

/** A language tag worth reporting ('x-none', 'und' and empty tags are not). */
export function usableLanguage(tag: string | undefined): string | undefined {
  const t = tag?.trim();
  if (!t) return undefined;
  const lower = t.toLowerCase();
  if (lower === 'x-none' || lower === 'und' || lower === 'none') return undefined;
  if (!/^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/.test(t)) return undefined;
  return t;
}

export class LanguageSet {
  private readonly seen = new Map<string, string>();
  add(tag: string | undefined): void {
    const t = usableLanguage(tag);
    if (t && !this.seen.has(t.toLowerCase())) this.seen.set(t.toLowerCase(), t);
  }
  toArray(): string[] {
    return [...this.seen.values()];
  }
}
