/** How the pages write numbers, durations and dates (one place, so tables, charts and CSV agree). */
export const percent = (part: number, whole: number): string => (whole > 0 ? `${Math.round((part / whole) * 1000) / 10}%` : '—');

export const score = (scaled: number | null | undefined): string => (scaled === null || scaled === undefined ? '—' : `${Math.round(scaled * 1000) / 10}`);

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(s % 60).padStart(2, '0')} s`;
}

export const date = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '—');
export const dateTime = (iso: string | null | undefined): string => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—');

const STATUS: Record<string, string> = { COMPLETED: 'Completed', INCOMPLETE: 'Incomplete', UNKNOWN: 'Not started', PASSED: 'Passed', FAILED: 'Failed' };
export const status = (value: string): string => STATUS[value] ?? value;

/** RFC 4180 CSV: every cell quoted where needed, CRLF lines. */
export function toCsv(header: string[], rows: Array<Array<string | number>>): string {
  const cell = (v: string | number) => {
    const t = String(v);
    return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
