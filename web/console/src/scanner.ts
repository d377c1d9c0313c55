import { useEffect, useRef } from 'preact/hooks';
import { SCAN_MAX_GAP_MS, scanStart } from './bursts';

/**
 * A keyboard-wedge scanner types a code as keystrokes and presses Enter, into whatever has focus:
 * the console recognises those bursts (bursts.ts) wherever focus is and hands the code to the
 * screen on show, which knows what it expects (a location, a product, an order, a tote label).
 * Whatever the burst typed into a field (Quantity, Carrier...) is taken back out, and its Enter
 * neither submits a form nor presses a button. Slower typing is left alone: people still type
 * into every field.
 */

/** Whether a scanned code is this label's (a location, a barcode, an sku): case and surrounding spaces aside. */
export const sameCode = (label: string | null | undefined, code: string) => label != null && label.trim().toLowerCase() === code.trim().toLowerCase();

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

const MODIFIERS = new Set(['Shift', 'CapsLock']);

function fieldOf(element: Element | null): Field | null {
  if (element instanceof HTMLInputElement) return element.type === 'checkbox' || element.type === 'radio' ? null : element;
  return element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement ? element : null;
}

/** Gives the field its value back, telling the screen as typing would (an `input` event). */
function restore({ field, before }: Keystroke): void {
  if (!field || field.value === before) return;
  field.value = before;
  field.dispatchEvent(new Event('input', { bubbles: true }));
}

function onKeyDown(event: KeyboardEvent): void {
  if (event.isComposing || event.ctrlKey || event.altKey || event.metaKey) {
    keys = [];
    return;
  }
  if (MODIFIERS.has(event.key)) return;
  const now = event.timeStamp;
  if (keys.length > 0 && now - keys.at(-1)!.at > SCAN_MAX_GAP_MS) keys = [];
  if (event.key === 'Enter') {
    const start = scanStart(keys.map((key) => key.at), now);
    const scanned = start === null ? [] : keys.slice(start);
    const listener = listeners.at(-1);
    keys = [];
    if (!listener || scanned.length === 0) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    restore(scanned[0]!);
    listener.current(scanned.map((key) => key.char).join('').trim());
    return;
  }
  if (event.key.length !== 1) {
    keys = [];
    return;
  }
  const field = fieldOf(document.activeElement);
  keys.push({ char: event.key, at: now, field, before: field?.value ?? '' });
}

let listening = false;

/**
 * Hands the screen every scan while it is on show. The "Scan" field of a screen calls the same
 * handler when a person types a code into it and presses Enter.
 */
export function useScanner(onScan: (code: string) => void): void {
  const listener = useRef(onScan);
  listener.current = onScan;
  useEffect(() => {
    // Capture phase: seen before any field or form handles the key. Once, with the first screen.
    if (!listening) addEventListener('keydown', onKeyDown, true);
    listening = true;
    listeners.push(listener);
    return () => {
      listeners.splice(listeners.indexOf(listener), 1);
    };
  }, []);
}
