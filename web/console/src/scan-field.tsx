import { useEffect, useRef } from 'preact/hooks';
import { focusSoon } from './focus';

/** What a handheld screen last said: what a scan or an action did, or why it was refused. */
export type Message = { kind: 'error' | 'info'; text: string } | null;

/** Where a screen's card puts what a scan means on it. */
export type ScanRef = { current: ((code: string) => void) | null };

/**
 * The always-focused "Scan" field, for a scanner and for a person typing a code. A scanner's
 * burst reaches the screen through useScanner wherever focus is; this field is where focus goes
 * back to after anything else.
 */
export function ScanField({ onScan }: { onScan(code: string): void }) {
  const input = useRef<HTMLInputElement>(null);
  const focus = () => focusSoon(input);
  useEffect(() => {
    focus();
  }, []);
  const typed = (event: Event) => {
    event.preventDefault();
    const code = input.current?.value.trim() ?? '';
    if (input.current) input.current.value = '';
    onScan(code);
  };
  // A scanner types into whatever has focus: keep it on "Scan" unless the picker moved it on purpose.
  const keepFocus = (event: FocusEvent) => {
    if (!event.relatedTarget) focus();
  };
  return (
    <form onSubmit={typed} class="scan-form">
      <label for="scan">Scan</label>
      <input id="scan" ref={input} autoFocus autocomplete="off" autocapitalize="off" spellcheck={false} enterkeyhint="enter" onBlur={keepFocus} />
    </form>
  );
}

export function MessageLine({ message }: { message: Message }) {
  // Always rendered, so screen readers announce each new message in the live region.
  return (
    <p class={`message ${message?.kind ?? ''}`} role={message?.kind === 'error' ? 'alert' : 'status'}>
      {message?.text ?? ''}
    </p>
  );
}
