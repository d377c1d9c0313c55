import type { PickBody } from './api';

/**
 * Picks recorded while the service could not be reached, oldest first, kept in localStorage so a
 * reload or a flat battery loses none. Each request sets the line's quantity, so sending one twice
 * is harmless; they are sent in order, so the last word on a line stays the last.
 */
const PREFIX = 'pickport.pending-picks.';

export class PickQueue {
  private readonly key: string;
  constructor(waveId: string) {
    this.key = `${PREFIX}${waveId}`;
  }

  /**
   * Drops the picks kept for any wave but `waveId` (the picker's wave now, or null): their wave was
   * finished or released elsewhere, and the service would refuse them. Answers how many it dropped.
   */
  static dropAllBut(waveId: string | null): number {
    let dropped = 0;
    for (const key of Object.keys(localStorage)) {
      if (!key.startsWith(PREFIX) || key === `${PREFIX}${waveId}`) continue;
      dropped += new PickQueue(key.slice(PREFIX.length)).all().length;
      localStorage.removeItem(key);
    }
    return dropped;
  }

  all(): PickBody[] {
    try {
      const stored = JSON.parse(localStorage.getItem(this.key) ?? '[]') as unknown;
      return Array.isArray(stored) ? (stored as PickBody[]) : [];
    } catch {
      return [];
    }
  }

  push(pick: PickBody): void {
    this.save([...this.all(), pick]);
  }

  /** Drops the oldest pick, once the service has it (or has refused it for good). */
  shift(): void {
    this.save(this.all().slice(1));
  }

  private save(picks: PickBody[]): void {
    if (picks.length === 0) localStorage.removeItem(this.key);
    else localStorage.setItem(this.key, JSON.stringify(picks));
  }
}
