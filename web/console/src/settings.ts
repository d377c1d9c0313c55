import { useEffect, useState } from 'preact/hooks';
import { api, describe, type Settings } from './api';

/** What a warehouse that never changed a setting gets (the service's own defaults). */
const DEFAULTS: Settings = { toteLabels: false, confirmLocation: true, packOnLastScan: false, pickFromReserve: false, minShelfLifeDays: 0 };

/** The warehouse's settings, read once when the screen opens; the defaults if they cannot be read. */
export function useSettings(): Settings | null {
  const [settings, setSettings] = useState<Settings | null>(null);
  useEffect(() => {
    api('GET', '/settings').then(setSettings, (error: unknown) => {
      console.warn(`Settings not read, using the defaults: ${describe(error)}`);
      setSettings(DEFAULTS);
    });
  }, []);
  return settings;
}
