import type { PickBody, PickerWave, WaveLine } from './api';
import { scannedUnits, type ProductScanned, type ReadScan } from '../../../src/catalog/scan';
import { sameCode } from './bursts';

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

export const isLocation = (visit: Visit, code: string) => visit.locationCode !== null && sameCode(visit.locationCode, code);

/**
 * The line of this visit a product scan stands for (the first not yet recorded), and how many units
 * it counts: its barcode or sku, a packaging's barcode, or a GS1 string naming it (scan.ts).
 */
export function lineScanned(visit: Visit, scan: ReadScan): { line: WaveLine; scanned: ProductScanned } | null {
  for (const line of pendingLines(visit)) {
    const scanned = scannedUnits(line, scan);
    if (scanned) return { line, scanned };
  }
  return null;
}

/** How a product is named where it is expected, so a wrong scan says what was wanted. */
export const productLabel = (line: WaveLine) => `${line.name} (${line.barcode ? `${line.barcode} or ` : ''}${line.productSku})`;

/**
 * Whether a pick records this line at this visit: the part at the visit's location (of the pick's
 * lot, or of the lot it was taken from instead), or the line's only part.
 */
const recordsLine = (pick: PickBody, line: WaveLine, locationCode: string | null) =>
  pick.orderExternalId === line.orderExternalId &&
  pick.productExternalId === line.productExternalId &&
  (pick.locationCode === undefined || pick.locationCode === locationCode) &&
  (pick.lot === undefined || line.lot === pick.lot || line.lot === pick.pickedLot);

/**
 * The pick of `quantity` of a line at this visit: it names the visit's location and the line's lot,
 * which tell which part of a split line it records, and `pickedLot` when the units scanned were of
 * another lot (the service checks that first expiry, first out allows it).
 */
export const pickAt = (visit: Visit, line: WaveLine, quantity: number, { reason, pickedLot }: { reason?: PickBody['reason']; pickedLot?: string | undefined } = {}): PickBody => ({
  orderExternalId: line.orderExternalId,
  productExternalId: line.productExternalId,
  quantity,
  ...(visit.locationCode !== null ? { locationCode: visit.locationCode } : {}),
  ...(line.lot !== null ? { lot: line.lot } : {}),
  ...(line.lot !== null && pickedLot !== undefined && pickedLot !== line.lot ? { pickedLot } : {}),
  ...(reason ? { reason } : {}),
});

/** The line a pick records in the wave; null when none does. */
export function lineOfPick(wave: PickerWave, pick: PickBody): WaveLine | null {
  for (const visit of visitsOf(wave)) {
    const line = visit.lines.find((candidate) => recordsLine(pick, candidate, visit.locationCode));
    if (line) return line;
  }
  return null;
}

/**
 * The wave as it will be once these picks reach the service: shown at once, and kept while they
 * wait in the offline queue. Stops done are counted again; the distance left stays the service's.
 */
export function withPicks(wave: PickerWave, picks: PickBody[]): PickerWave {
  if (picks.length === 0) return wave;
  const apply = (locationCode: string | null) => (line: WaveLine): WaveLine => {
    const pick = picks.findLast((candidate) => recordsLine(candidate, line, locationCode));
    return pick ? { ...line, pickedQuantity: pick.quantity, reason: pick.reason ?? null } : line;
  };
  const stops = wave.stops.map((stop) => ({ ...stop, lines: stop.lines.map(apply(stop.locationCode)) }));
  const stopsDone = stops.filter((stop) => stop.lines.every(recorded)).length;
  return { ...wave, stops, unplaced: wave.unplaced.map(apply(null)), progress: { ...wave.progress, stopsDone } };
}

/**
 * Where the line of a short pick goes on, in the wave the service answered: the stop its missing
 * units were planned at (the service plans them at the slots holding them, as a stop of the route),
 * or null when no slot holds them (the line is picked short) or the pick was not short.
 */
export function shortPickGoesOn(wave: PickerWave, pick: PickBody): { line: WaveLine; next: NonNullable<WaveLine['next']> } | null {
  const line = lineOfPick(wave, pick);
  return line && pick.quantity < line.quantity && line.next ? { line, next: line.next } : null;
}

export const allRecorded = (wave: PickerWave) => visitsOf(wave).every((visit) => visit.lines.every(recorded));

/** The totes a product goes to at this visit, how many each gets, and whether that is done. */
export function totesFor(visit: Visit, line: WaveLine): { tote: number; quantity: number; done: boolean }[] {
  return visit.lines
    .filter((other) => other.productExternalId === line.productExternalId)
    .map((other) => ({ tote: other.tote, quantity: other.quantity, done: recorded(other) }));
}

/** The wave's totes still without a label, while none of its lines is recorded (labels go on before the first pick). */
export function totesToLabel(wave: PickerWave): PickerWave['orders'] {
  if (visitsOf(wave).some((visit) => visit.lines.some(recorded))) return [];
  const labelled = new Set(wave.toteLabels.map((tote) => tote.tote));
  return wave.orders.filter((order) => !labelled.has(order.tote));
}
