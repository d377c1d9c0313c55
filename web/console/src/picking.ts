import type { PickBody, PickerWave, WaveLine } from './api';

/** A place the picker goes to: a stop of the route, or the lines whose product has no location. */
export interface Visit {
  /** null for the unplaced lines: nothing to confirm, the product is scanned straight away. */
  locationCode: string | null;
  lines: WaveLine[];
}

export const visitsOf = (wave: PickerWave): Visit[] => [
  ...wave.stops.map((stop) => ({ locationCode: stop.locationCode, lines: stop.lines })),
  ...(wave.unplaced.length > 0 ? [{ locationCode: null, lines: wave.unplaced }] : []),
];

const recorded = (line: WaveLine) => line.pickedQuantity !== null;

/** The first visit with a line still to record (the screen shows it), or null when all are done. */
export function nextVisit(wave: PickerWave): Visit | null {
  return visitsOf(wave).find((visit) => !visit.lines.every(recorded)) ?? null;
}

export const pendingLines = (visit: Visit) => visit.lines.filter((line) => !recorded(line));

const same = (a: string | null | undefined, b: string) => a != null && a.trim().toLowerCase() === b.trim().toLowerCase();

export const isLocation = (visit: Visit, code: string) => visit.locationCode !== null && same(visit.locationCode, code);

/** The line of this visit a product scan (barcode or sku) stands for: the first not yet recorded. */
export const lineScanned = (visit: Visit, code: string) =>
  pendingLines(visit).find((line) => same(line.barcode, code) || same(line.productSku, code)) ?? null;

/** How a product is named where it is expected, so a wrong scan says what was wanted. */
export const productLabel = (line: WaveLine) => `${line.name} (${line.barcode ? `${line.barcode} or ` : ''}${line.productSku})`;

export const sameLine = (a: Pick<PickBody, 'orderExternalId' | 'productExternalId'>, b: Pick<PickBody, 'orderExternalId' | 'productExternalId'>) =>
  a.orderExternalId === b.orderExternalId && a.productExternalId === b.productExternalId;

/**
 * The wave as it will be once these picks reach the service: shown at once, and kept while they
 * wait in the offline queue. Stops done are counted again; the distance left stays the service's.
 */
export function withPicks(wave: PickerWave, picks: PickBody[]): PickerWave {
  if (picks.length === 0) return wave;
  const apply = (line: WaveLine): WaveLine => {
    const pick = picks.findLast((candidate) => sameLine(candidate, line));
    return pick ? { ...line, pickedQuantity: pick.quantity, reason: pick.reason ?? null } : line;
  };
  const stops = wave.stops.map((stop) => ({ ...stop, lines: stop.lines.map(apply) }));
  const stopsDone = stops.filter((stop) => stop.lines.every(recorded)).length;
  return { ...wave, stops, unplaced: wave.unplaced.map(apply), progress: { ...wave.progress, stopsDone } };
}

export const allRecorded = (wave: PickerWave) => visitsOf(wave).every((visit) => visit.lines.every(recorded));

/** The totes a product goes to at this visit, and how many each gets. */
export function totesFor(visit: Visit, line: WaveLine): { tote: number; quantity: number }[] {
  return visit.lines
    .filter((other) => other.productExternalId === line.productExternalId)
    .map((other) => ({ tote: other.tote, quantity: other.quantity }));
}
