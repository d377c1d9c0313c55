import { describe, expect, it } from 'vitest';
import { scanStart } from '../../web/console/src/bursts';

/** Keystroke times from gaps: the first at 1000 ms, then each gap after the one before; Enter after the last gap. */
function timing(gaps: number[]): { times: number[]; enter: number } {
  const times = [1000];
  for (const gap of gaps.slice(0, -1)) times.push(times.at(-1)! + gap);
  return { times, enter: times.at(-1)! + gaps.at(-1)! };
}
const start = (gaps: number[]) => {
  const { times, enter } = timing(gaps);
  return scanStart(times, enter);
};

describe('telling a scan from typing by the keystrokes timing', () => {
  it('a scanner 5 to 10 ms apart is a scan from its first key', () => {
    expect(start([7, 5, 9, 10, 6, 8, 5, 7, 9, 6, 5, 8, 4])).toBe(0);
  });

  it('a person typing, even fast, then Enter, is no scan', () => {
    expect(start([140, 95, 180, 120, 160])).toBeNull();
    expect(start([65, 70, 60, 62])).toBeNull();
  });

  it('a scan too short to be a code (two keys) is no scan', () => {
    expect(start([6, 6])).toBeNull();
  });

  it('one late keystroke inside a burst (a busy device) stays in the scan, the first one included', () => {
    expect(start([6, 7, 6, 150, 7, 6, 8, 7, 6])).toBe(0);
    expect(start([120, 7, 6, 8, 7, 6, 9, 5])).toBe(0);
  });

  it('what a person typed just before a scan stays out of it', () => {
    // "DHL" typed by hand, then a 12-character scan.
    expect(start([125, 130, 125, 7, 6, 8, 7, 6, 9, 5, 8, 7, 6, 8, 5])).toBe(3);
  });

  it('a burst whose Enter comes late is no scan: a person pressed it', () => {
    expect(start([6, 7, 6, 8, 7, 300])).toBeNull();
  });
});
