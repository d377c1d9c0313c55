/** "1 order", "3 orders": a count with its noun, as the screens say it. */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A wave as people name it: its number in the warehouse, W-0012 (W-12345 past 9999). */
export const waveName = (wave: { number: number }) => `W-${String(wave.number).padStart(4, '0')}`;

/** A wave with whose it is: "W-0012 (Ana Alves)", "W-0012 (unassigned)". */
export const waveLabel = (wave: { number: number; picker: { name: string } | null }) => `${waveName(wave)} (${wave.picker?.name ?? 'unassigned'})`;
