import { Type, type Static } from '@sinclair/typebox';
import { IsoDateTime, Success } from '../http/schemas';
import { Layout } from '../floor/schemas';

export const BUCKETS = ['hour', 'day'] as const;
export type Bucket = (typeof BUCKETS)[number];

const periodFields = {
  from: Type.String({ format: 'date-time', description: 'Start of the period (included), ISO 8601', examples: ['2026-11-23T00:00:00Z'] }),
  to: Type.String({ format: 'date-time', description: 'End of the period (excluded), ISO 8601; after `from`', examples: ['2026-11-24T00:00:00Z'] }),
};

export const HeatMapQuery = Type.Object(periodFields);
export const ChartsQuery = Type.Object({
  ...periodFields,
  bucket: Type.Union(
    BUCKETS.map((bucket) => Type.Literal(bucket)),
    { description: 'Width of each point of the charts, cut at whole UTC hours or days', default: 'hour' },
  ),
});
export type ChartsQuery = Static<typeof ChartsQuery>;

const Count = Type.Integer({ minimum: 0 });
const Rate = Type.Union([Type.Number(), Type.Null()], { description: 'null when there is nothing to divide by' });

export const HeatMap = Type.Object({
  from: IsoDateTime,
  to: IsoDateTime,
  layout: Type.Union([Layout, Type.Null()], { description: 'null until the warehouse has a layout' }),
  locations: Type.Array(
    Type.Object({
      code: Type.String(),
      aisle: Type.Integer(),
      position: Type.Integer(),
      picks: Type.Integer({ minimum: 0, description: 'Picks recorded at the location in the period (a line planned at two stops is two picks)' }),
      units: Type.Number({ description: 'Units those picks took' }),
    }),
    { description: 'Every placed location, busiest first; a location not picked from has 0 picks' },
  ),
  unplaced: Type.Object({ picks: Count, units: Type.Number() }, { description: 'Picks of lines without a placed location (picked after the route)' }),
});
export const HeatMapResponse = Success(HeatMap);
export type HeatMap = Static<typeof HeatMap>;

export const ChartPoint = Type.Object({
  start: IsoDateTime,
  received: Type.Integer({ minimum: 0, description: 'Orders created' }),
  picked: Type.Integer({ minimum: 0, description: 'Orders whose picking was completed' }),
  packed: Type.Integer({ minimum: 0, description: 'Orders moved to PACKED (from their status events; hours rolled up before retention deleted the events keep their counts)' }),
  dispatched: Type.Integer({ minimum: 0, description: 'Orders dispatched' }),
  linesPicked: Type.Integer({ minimum: 0, description: 'Picks recorded in waves assigned to a picker' }),
  unitsPicked: Type.Number({ description: 'Units of those picks' }),
  pickerHours: Type.Integer({ minimum: 0, description: 'Clock hours in which a picker recorded at least one pick, summed over pickers' }),
  linesPerPickerHour: Rate,
  unitsPerPickerHour: Rate,
  wavesCompleted: Type.Integer({ minimum: 0, description: 'COMPLETED waves made in the bucket' }),
  walkPerOrder: Type.Union([Type.Number(), Type.Null()], { description: "Their planned routes' length per order" }),
  sShapeWalkPerOrder: Type.Union([Type.Number(), Type.Null()], { description: 'The S-shape route of the same picks, per order' }),
  shortPicks: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Picks recorded below the planned quantity, by reason (NO_REASON when none was given)' }),
});

export const Charts = Type.Object({
  from: IsoDateTime,
  to: IsoDateTime,
  bucket: Type.Union(BUCKETS.map((bucket) => Type.Literal(bucket))),
  points: Type.Array(ChartPoint, { description: 'One per bucket from the one holding `from` to the one holding the end, oldest first' }),
  shortReasons: Type.Array(Type.String(), { description: 'Every reason of a short pick in the period, most frequent first' }),
  pickers: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      linesPicked: Count,
      unitsPicked: Type.Number(),
      pickerHours: Count,
      linesPerPickerHour: Rate,
    }),
    { description: 'Who picked in the period, fastest first' },
  ),
});
export const ChartsResponse = Success(Charts);
export type Charts = Static<typeof Charts>;
