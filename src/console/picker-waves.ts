import type { FastifyRequest } from 'fastify';
import type { Db, Executor, Tx } from '../db';
import { writeEmitting } from '../events/outbox';
import type { DomainEvent } from '../events/types';
import type { Layout } from '../floor/layout';
import { findLayout } from '../floor/layouts';
import { waveProgress, type Progress } from '../floor/progress';
import type { Wave } from '../floor/schemas';
import { loadWaves } from '../floor/waves';
import { notFound } from '../http/errors';

export type PickerWave = Wave & { progress: Progress };

/** A stop is done when every line of it has a pick recorded. */
export const stopStates = (wave: Wave) =>
  wave.stops.map((stop) => ({ aisle: stop.aisle, position: stop.position, done: stop.lines.every((line) => line.pickedQuantity !== null) }));

/** The wave's progress on the layout (none stored: no walk to measure, so nothing left to walk). */
export function withProgress(layout: Layout | undefined, wave: Wave): PickerWave {
  const stops = stopStates(wave);
  const progress = layout
    ? waveProgress(layout, stops)
    : { stopsDone: stops.filter((stop) => stop.done).length, stopsTotal: stops.length, distanceLeft: 0 };
  return { ...wave, progress };
}

/** The waves as the console shows them, in the order of `waveIds`. */
export async function loadPickerWaves(db: Executor, tenantId: string, waveIds: string[]): Promise<PickerWave[]> {
  const [layout, waves] = await Promise.all([findLayout(db, tenantId), loadWaves(db, tenantId, waveIds)]);
  return waves.map((wave) => withProgress(layout, wave));
}

export async function loadPickerWave(db: Executor, tenantId: string, waveId: string): Promise<PickerWave> {
  const [wave] = await loadPickerWaves(db, tenantId, [waveId]);
  if (!wave) throw notFound(`Wave ${waveId}`);
  return wave;
}

/** Runs one wave write of the caller's tenant with its events, and answers the wave as the console shows it. */
export async function waveWrite(db: Db, request: FastifyRequest, work: (tx: Tx, tenantId: string) => Promise<{ waveId: string; events: DomainEvent[] }>) {
  const { tenantId } = request.staff;
  const { waveId } = await writeEmitting(db, tenantId, (tx) => work(tx, tenantId));
  return { success: true as const, data: await loadPickerWave(db, tenantId, waveId), requestId: request.id };
}
