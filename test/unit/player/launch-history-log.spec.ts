import { historyCaptureOf, historyLine, historyLogForReading, HISTORY_LINE_MAX } from '../../../src/modules/registrations/launch-history-log';

describe('launch history log: what a launch captures, its lines, its reading order', () => {
  const capture = (values: Record<string, string>) => historyCaptureOf(new Map(Object.entries(values)));

  it('PlayerCaptureHistory turns it on or off; each area by its PlayerDebug flags, detailed only with PlayerCaptureHistoryDetailed', () => {
    // The catalogue's defaults: capture on, not detailed, every area's flags on.
    expect(capture({})).toEqual({ rte: 'audit', seq: 'audit', control: 'audit', timings: true });
    expect(capture({ PlayerCaptureHistory: 'NO' })).toBeUndefined();
    expect(capture({ PlayerCaptureHistoryDetailed: 'YES' })).toEqual({ rte: 'detailed', seq: 'detailed', control: 'detailed', timings: true });
    // V1 debugX=audit: only …Audit; =off: both off.
    expect(capture({ PlayerCaptureHistoryDetailed: 'YES', PlayerDebugRteDetailed: 'false', PlayerDebugSequencingAudit: 'false', PlayerDebugSequencingDetailed: 'false', PlayerDebugIncludeTimestamps: 'false' })).toEqual({ rte: 'audit', control: 'detailed' });
  });

  it('writes one line per event, line breaks escaped, long ones cut', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(historyLine('rte', 'SetValue("a", "x\ny")', at)).toBe('2026-01-02T03:04:05.678Z rte SetValue("a", "x\\ny")\n');
    const long = historyLine('rte', 'x'.repeat(HISTORY_LINE_MAX * 2), at);
    expect(long.length).toBeLessThan(HISTORY_LINE_MAX + 100);
    expect(long).toMatch(/… \(\d+ characters\)\n$/);
  });

  it('reads the lines in time order, stable, whatever order they were appended in', () => {
    const log = ['2026-01-01T00:00:02.000Z b', '2026-01-01T00:00:01.000Z a', '2026-01-01T00:00:02.000Z c', '2026-01-01T00:00:00.500Z first'].join('\n') + '\n';
    expect(historyLogForReading(log)).toBe(['2026-01-01T00:00:00.500Z first', '2026-01-01T00:00:01.000Z a', '2026-01-01T00:00:02.000Z b', '2026-01-01T00:00:02.000Z c'].join('\n') + '\n');
    expect(historyLogForReading(null)).toBe('');
    expect(historyLogForReading('<log/>')).toBe('<log/>');
  });
});
