import { useEffect, useRef } from 'preact/hooks';
import { GS } from '../../../src/catalog/gs1';
import { SCAN_MAX_GAP_MS, scanStart } from './bursts';

/**
 * A keyboard-wedge scanner types a code as keystrokes and presses Enter, into whatever has focus:
 * the console recognises those bursts (bursts.ts) wherever focus is and hands the code to the
 * screen on show, which knows what it expects (a location, a product, an order, a tote label).
 * Whatever the burst typed into a field (Quantity, Carrier...) is taken back out, and its Enter
 * neither submits a form nor presses a button. Slower typing is left alone: people still type
 * into every field.
 */

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

interface Keystroke {
  char: string;
  at: number;
  /** The field focused at the keystroke, and its value before it (given back when it is part of a scan). */
  field: Field | null;
  before: string;
}

/** The screens listening, the one on show last: only it hears a scan. */
const listeners: { current: (code: string) => void }[] = [];
/** The keystrokes since the last gap longer than SCAN_MAX_GAP_MS, the last Enter or another key. */
let keys: Keystroke[] = [];
/**
 * Scans made while no screen listened (the page still loading after a reload or a sign-in), for
 * the first screen that listens: a scanner does not wait for the page, and a lost scan is a
 * silent miss. A scan older than HELD_FOR_MS is dropped rather than applied to a screen the
 * person no longer expects it on.
 */
let held: { code: string; at: number }[] = [];
const HELD_FOR_MS = 5_000;

const MODIFIERS = new Set(['Shift', 'CapsLock', 'Control']);

/**
 * What a keystroke adds to a scan: its character, '\n' for Enter, GS for Ctrl+] (the only key a
 * scanner emulating a keyboard can type GS with, and what most send for it), or undefined for a
 * key no scan types (which ends any burst).
 */
function scannedChar(event: KeyboardEvent): string | undefined {
  if (event.isComposing || event.altKey || event.metaKey) return undefined;
  if (event.ctrlKey) return event.code === 'BracketRight' ? GS : undefined;
  if (event.key === 'Enter') return '\n';
  return event.key.length === 1 ? event.key : undefined;
}

function fieldOf(element: Element | null): Field | null {
  if (element instanceof HTMLInputElement) return element.type === 'checkbox' || element.type === 'radio' ? null : element;
  return element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement ? element : null;
}

/**
 * Gives each field the burst typed into its value back, telling the screen as typing would (an
 * `input` event). Focus may move during a burst (a screen drawn while it is typed), so a burst
 * can touch more than one field.
 */
function restore(scanned: Keystroke[]): void {
  const restored = new Set<Field>();
  for (const { field, before } of scanned) {
    if (!field || restored.has(field)) continue;
    restored.add(field);
    if (field.value === before) continue;
    field.value = before;
    field.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

function onKeyDown(event: KeyboardEvent): void {
  if (MODIFIERS.has(event.key)) return;
  const char = scannedChar(event);
  if (char === undefined) {
    keys = [];
    return;
  }
  const now = event.timeStamp;
  if (keys.length > 0 && now - keys.at(-1)!.at > SCAN_MAX_GAP_MS) keys = [];
  if (char === '\n') {
    const start = scanStart(keys.map((key) => key.at), now);
    const scanned = start === null ? [] : keys.slice(start);
    const listener = listeners.at(-1);
    keys = [];
    if (scanned.length === 0) return;
    const code = scanned.map((key) => key.char).join('').trim();
    // Begun in a field with no screen listening (signing in with a badge): the field's own.
    if (!listener && scanned[0]!.field) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    restore(scanned);
    if (listener) listener.current(code);
    else held.push({ code, at: now });
    return;
  }
  const field = fieldOf(document.activeElement);
  keys.push({ char, at: now, field, before: field?.value ?? '' });
}

// Capture phase: seen before any field or form handles the key. From the page's first moment,
// before any screen is drawn, so that a scan made while it loads is held, not lost.
addEventListener('keydown', onKeyDown, true);

/**
 * Hands the screen every scan while it is on show, starting with the scans held while the page
 * loaded. The "Scan" field of a screen calls the same handler when a person types a code into it
 * and presses Enter.
 */
export function useScanner(onScan: (code: string) => void): void {
  const listener = useRef(onScan);
  listener.current = onScan;
  useEffect(() => {
    listeners.push(listener);
    const recent = held.filter(({ at }) => performance.now() - at <= HELD_FOR_MS);
    held = [];
    for (const { code } of recent) listener.current(code);
    return () => {
      listeners.splice(listeners.indexOf(listener), 1);
    };
  }, []);
}
