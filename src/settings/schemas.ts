import { Type, type Static } from '@sinclair/typebox';
import { Success } from '../http/schemas';

// No `default` keyword: bodies are validated with useDefaults, which would fill in what a change leaves out.
const fields = {
  toteLabels: Type.Boolean({ description: "Each wave starts by scanning a label onto every tote; the pack station finds an order by its tote's label (default false)" }),
  confirmLocation: Type.Boolean({ description: "The picker scans a stop's location before its products (default true)" }),
  packOnLastScan: Type.Boolean({ description: "At the pack station, the scan that checks an order's last unit marks it packed (default false)" }),
  pickFromReserve: Type.Boolean({
    description: 'Waves and routes for items take from reserve slots what the pick faces cannot cover; without it such an order waits for a replenishment (default false)',
  }),
  minShelfLifeDays: Type.Integer({
    minimum: 0,
    maximum: 36_500,
    description: 'A line of a product kept by lot never takes a lot that expires sooner than this many days from today, UTC (first expiry, first out; default 0: only expired lots are left)',
  }),
};

export const Settings = Type.Object(fields, { description: "How the warehouse's console and waves work" });
export type Settings = Static<typeof Settings>;
export const SettingsResponse = Success(Settings);

export const SettingsBody = Type.Object(
  {
    toteLabels: Type.Optional(fields.toteLabels),
    confirmLocation: Type.Optional(fields.confirmLocation),
    packOnLastScan: Type.Optional(fields.packOnLastScan),
    pickFromReserve: Type.Optional(fields.pickFromReserve),
    minShelfLifeDays: Type.Optional(fields.minShelfLifeDays),
  },
  { additionalProperties: false, description: 'The settings to change; those left out keep their value', examples: [{ toteLabels: true, packOnLastScan: true }] },
);
export type SettingsChange = Static<typeof SettingsBody>;
