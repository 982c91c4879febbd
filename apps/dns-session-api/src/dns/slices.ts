// Long loops over a zone's records (imports of 100k+ records) give the event loop back every few thousand
// items, so other requests are not kept waiting behind one import (issue 12).
import { setImmediate as nextTurn } from 'node:timers/promises';

export { nextTurn };

/** Array.filter, pausing every `slice` items. */
export async function filterInSlices<T>(items: readonly T[], keep: (item: T) => boolean, slice = 5000): Promise<T[]> {
  const kept: T[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i % slice === slice - 1) await nextTurn();
    const item = items[i] as T;
    if (keep(item)) kept.push(item);
  }
  return kept;
}
