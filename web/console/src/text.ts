/** "1 order", "3 orders": a count with its noun, as the screens say it. */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
