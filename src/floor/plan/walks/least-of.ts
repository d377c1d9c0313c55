/**
 * The `count` items of least key, least first, ties in the order given: what a stable sort by key
 * cut to `count` gives, without sorting the rest. The count-th least key is selected first
 * (quickselect over a copy of the keys), then only the items up to it are sorted.
 */
export function leastOf<T>(items: readonly T[], count: number, key: (item: T) => number): T[] {
  if (items.length <= count) return [...items].sort((a, b) => key(a) - key(b));
  if (count <= 0) return [];
  const keys = Float64Array.from(items, key);
  const cut = selectKth(Float64Array.from(keys), count - 1);
  // Every key below the cut, then keys equal to it in the order given until `count` are chosen.
  let atCut = count - keys.reduce((below, value) => (value < cut ? below + 1 : below), 0);
  const chosen: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (keys[i]! < cut) chosen.push(i);
    else if (keys[i] === cut && atCut > 0) {
      chosen.push(i);
      atCut--;
    }
  }
  return chosen.sort((a, b) => keys[a]! - keys[b]! || a - b).map((i) => items[i]!);
}

/** The value that would stand at index k were `values` sorted (values is reordered). */
function selectKth(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k]!;
  }
  return values[k]!;
}
