import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Executor } from '../db';
import { completeWave, recordPick, startPickerWave, waveRequest, withFreshPlan } from '../floor/wave-commands';
import { pickerWaveId } from '../floor/wave-reads';
import { notFound } from '../http/errors';
import { bodyIsOptional, responses } from '../http/schemas';
import { bindToteLabel } from '../totes/labels';
import { consoleRoute, PICKING } from './auth';
import { loadPickerWave, waveWrite } from './picker-view';
import { ConsolePickBody, EmptyBody, MaybePickerWaveResponse, PickerWaveResponse, ToteLabelBody } from './schemas';

/** The caller's PICKING wave; 404 when they have none. */
async function ownWaveId(db: Executor, request: FastifyRequest): Promise<string> {
  const waveId = await pickerWaveId(db, request.staff.tenantId, request.staff.user.id);
  if (!waveId) throw notFound('Your PICKING wave (start picking first)');
  return waveId;
}

const config = { roles: PICKING };

/** The picker's screen: one wave at a time, assigned to the caller (pickers and supervisors). */
export const pickingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.get(
    '/picking/wave',
    { config, schema: { ...consoleRoute, operationId: 'getMyWave', summary: "The caller's PICKING wave, or null", response: responses({ 200: MaybePickerWaveResponse }) } },
    async (request) => {
      const waveId = await pickerWaveId(db, request.staff.tenantId, request.staff.user.id);
      return { success: true as const, data: waveId ? await loadPickerWave(db, request.staff.tenantId, waveId) : null, requestId: request.id };
    },
  );

  app.post(
    '/picking/wave',
    {
      config,
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'startMyWave', summary: "Start picking: the caller's wave, else the oldest wave nobody is assigned to, else a new one",
        description:
          '200 with the wave the caller is already picking, or with the oldest unassigned PICKING wave (a supervisor made it), now theirs; ' +
          '201 with a new wave, chosen as POST /waves chooses one without `orders` (its default limits). 409 NOTHING_TO_PICK when no order is free.',
        body: EmptyBody,
        response: responses({ 200: PickerWaveResponse, 201: PickerWaveResponse }, 409),
      },
    },
    async (request, reply) => {
      const deadline = app.planner.deadline();
      const { tenantId, user } = request.staff;
      return withFreshPlan(waveRequest({}), { db, planner: app.planner, tenantId, deadline }, (planned) => waveWrite(request, reply, (tx) => startPickerWave(tx, tenantId, user.id, planned)), {
        planFirst: false,
      });
    },
  );

  app.post(
    '/picking/wave/totes',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'labelMyTote', summary: "Bind a scanned label to the next tote of the caller's wave without one",
        description:
          '409 when the label is on a tote whose order is not packed yet (the message says which), or when every tote has its label. ' +
          'The pack station then finds the order by the label, until the order is packed.',
        body: ToteLabelBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, async (tx, tenantId) => {
        const waveId = await ownWaveId(tx, request);
        return { waveId, ...(await bindToteLabel(tx, tenantId, waveId, request.body.label)) };
      }),
  );

  app.post(
    '/picking/wave/picks',
    {
      config,
      schema: {
        ...consoleRoute,
        operationId: 'recordMyPick', summary: "Record the picked quantity of a line of the caller's wave (sets it; a replay changes nothing)",
        description: 'A short pick (less than ordered) needs a `reason`. 404 when the caller has no PICKING wave.',
        body: ConsolePickBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, async (tx, tenantId) => {
        const waveId = await ownWaveId(tx, request);
        await recordPick(tx, tenantId, waveId, request.body, { shortNeedsReason: true });
        return { waveId, events: [] };
      }),
  );

  app.post(
    '/picking/wave/complete',
    {
      config,
      preValidation: bodyIsOptional,
      schema: {
        ...consoleRoute,
        operationId: 'completeMyWave', summary: "Finish the caller's wave: its orders go to PICKED with the recorded quantities",
        description: '409 PICKS_MISSING, listing the lines, while a line has no pick recorded.',
        body: EmptyBody,
        response: responses({ 200: PickerWaveResponse }, 404, 409),
      },
    },
    async (request, reply) =>
      waveWrite(request, reply, async (tx, tenantId) => {
        const waveId = await ownWaveId(tx, request);
        return { waveId, events: await completeWave(tx, tenantId, waveId) };
      }),
  );
};
