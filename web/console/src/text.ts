import { lotText } from '../../../src/floor/plan/fefo';

/** "1 order", "3 orders": a count with its noun, as the screens say it. */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A wave as people name it: its number in the warehouse, W-0012 (W-12345 past 9999). */
export const waveName = (wave: { number: number }) => `W-${String(wave.number).padStart(4, '0')}`;

/** A wave with whose it is: "W-0012 (Ana Alves)", "W-0012 (unassigned)". */
export const waveLabel = (wave: { number: number; picker: { name: string } | null }) => `${waveName(wave)} (${wave.picker?.name ?? 'unassigned'})`;

/** The lots an item got, as the packer reads them: "3 of lot L-0425 (expires 2027-03-11), 2 of lot L-0501 (…)". */
export const pickedLotsText = (lots: readonly { lot: string; expiresOn: string | null; quantity: number }[]) =>
  lots.map((lot) => `${lot.quantity} of ${lotText(lot.lot, lot.expiresOn)}`).join(', ');
