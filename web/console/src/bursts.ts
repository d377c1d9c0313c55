/**
 * How a scan is told from typing, by the keystrokes' timing alone. Scanners type 1 to 10 ms apart
 * (Zebra DataWedge with no inter-character delay); even fast typists average over 60 ms a key.
 * A scan is the run of keystrokes just before Enter that are at
 * most SCAN_KEY_GAP_MS apart, at least SCAN_MIN_LENGTH of them, on average at most
 * SCAN_MAX_AVERAGE_GAP_MS apart. A busy device delivers a burst's keystrokes unevenly: one longer
 * gap (up to SCAN_MAX_GAP_MS) between fast keystrokes stays inside the scan, while the keys a
 * person typed just before it (slow gaps on both sides) stay out of it. A lone key typed less than
 * SCAN_MAX_GAP_MS before a scan cannot be told from the scan's first one, and joins it.
 */
export const SCAN_MIN_LENGTH = 3;
export const SCAN_KEY_GAP_MS = 40;
export const SCAN_MAX_AVERAGE_GAP_MS = 30;
export const SCAN_MAX_GAP_MS = 200;

/**
 * Of keystrokes at `times` (ms, oldest first) then Enter at `enter`, where the scan starts: its
 * first keystroke's index, or null when they end in no scan. Walks back from Enter over fast gaps
 * and lone slow ones.
 */
export function scanStart(times: number[], enter: number): number | null {
  const gapAfter = (index: number) => (times[index + 1] ?? enter) - times[index]!;
  let start = times.length;
  while (start > 0) {
    const gap = gapAfter(start - 1);
    // A slow gap before Enter, or after another slow one: the key before it was a person's.
    if (gap > SCAN_KEY_GAP_MS && (start === times.length || (start > 1 && gapAfter(start - 2) > SCAN_KEY_GAP_MS))) break;
    start--;
  }
  const length = times.length - start;
  return length >= SCAN_MIN_LENGTH && (enter - times[start]!) / length <= SCAN_MAX_AVERAGE_GAP_MS ? start : null;
}

/** Whether a scanned code is this label's (a location, a barcode, an sku): case and surrounding spaces aside. */
export const sameCode = (label: string | null | undefined, code: string) => label != null && label.trim().toLowerCase() === code.trim().toLowerCase();
