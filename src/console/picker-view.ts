import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Executor, Tx } from '../db';
import type { DomainEvent } from '../events/types';
import type { Layout } from '../floor/plan/layout';
import { findLayout } from '../floor/layout-store';
import { waveProgress, type Progress } from '../floor/plan/progress';
import type { Wave } from '../floor/schemas';
import { loadWaves } from '../floor/wave-reads';
import { notFound } from '../http/errors';
import { respondWithView } from '../http/write';
import { labelsOfWaves } from '../totes/labels';

export type PickerWave = Wave & { progress: Progress; toteLabels: { tote: number; label: string }[] };

/** A stop is done when every line of it has a pick recorded. */
export const stopStates = (wave: Wave) =>
  wave.stops.map((stop) => ({ aisle: stop.aisle, position: stop.position, done: stop.lines.every((line) => line.pickedQuantity !== null) }));

/** The wave's progress on the layout (none stored: no walk to measure, so nothing left to walk). */
function withProgress(layout: Layout | undefined, wave: Wave): Wave & { progress: Progress } {
  const stops = stopStates(wave);
  const progress = layout
    ? waveProgress(layout, stops)
    : { stopsDone: stops.filter((stop) => stop.done).length, stopsTotal: stops.length, distanceLeft: 0 };
  return { ...wave, progress };
}

/** The waves as the console shows them: with the walk left and their totes' labels. */
export async function asPickerWaves(db: Executor, tenantId: string, waves: Wave[]): Promise<PickerWave[]> {
  const [layout, labels] = await Promise.all([findLayout(db, tenantId), labelsOfWaves(db, tenantId, waves.map((wave) => wave.id))]);
  return waves.map((wave) => ({ ...withProgress(layout, wave), toteLabels: labels.get(wave.id) ?? [] }));
}

/** The waves as the console shows them, in the order of `waveIds`. */
export async function loadPickerWaves(db: Executor, tenantId: string, waveIds: string[]): Promise<PickerWave[]> {
  return asPickerWaves(db, tenantId, await loadWaves(db, tenantId, waveIds));
}

export async function loadPickerWave(db: Executor, tenantId: string, waveId: string): Promise<PickerWave> {
  const [wave] = await loadPickerWaves(db, tenantId, [waveId]);
  if (!wave) throw notFound(`Wave ${waveId}`);
  return wave;
}

/** What a wave write of the console did: the wave it changed, its events, and whether it made the wave. */
export interface WaveWork {
  waveId: string;
  events: DomainEvent[];
  created?: boolean;
}

/** Runs one wave write of the caller's tenant, and answers the wave as the console shows it (201 when it made it). */
export async function waveWrite(request: FastifyRequest, reply: FastifyReply, work: (tx: Tx, tenantId: string) => Promise<WaveWork>) {
  const { tenantId } = request.staff;
  return respondWithView(request, reply, tenantId, (tx) => work(tx, tenantId), ({ waveId }, tx) => loadPickerWave(tx, tenantId, waveId));
}
