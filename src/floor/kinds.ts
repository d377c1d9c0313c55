/*
 * The kinds of slots, replenishment tasks and counts, as stored: a leaf module, so that tables.ts and the
 * modules it imports types from can all name them without an import circle.
 */

/** A pick face (waves and routes for items take from it) or reserve (it feeds the faces). */
export type SlotRole = 'pick' | 'reserve';
export type ReplenishmentReason = 'MIN' | 'DEMAND' | 'SHORT';
export type ReplenishmentStatus = 'OPEN' | 'IN_PROGRESS' | 'DONE' | 'CANCELLED';
/** Who asked for a count: POST /counts, or a short pick that found a slot emptier than recorded. */
export type CountReason = 'REQUESTED' | 'SHORT_PICK';
export type CountStatus = 'OPEN' | 'DONE' | 'CANCELLED';
