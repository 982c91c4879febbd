import { bannedUntil, parseBanDuration } from '../../src/services/admin/ban-duration';

describe('parseBanDuration (Go time.ParseDuration units)', () => {
  it.each([
    ['none', 0],
    ['0', 0],
    ['24h', 86_400_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['2s500ms', 2_500],
    ['1000us', 1],
    ['1000µs', 1],
    ['1000000ns', 1],
    ['-1h', -3_600_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseBanDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each(['', '90', '1d', '1 h', ' 1h', 'h', 'forever', '1h30', 'NONE', '1w', '10sec'])('rejects %p', (text) => {
    expect(parseBanDuration(text)).toBeUndefined();
  });

  it('a positive ban ends in the future; none or negative clears it', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(bannedUntil(now, 3_600_000)?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(bannedUntil(now, 0)).toBeNull();
    expect(bannedUntil(now, -5)).toBeNull();
  });
});
