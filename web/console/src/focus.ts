/**
 * Gives focus back to a scan field on the next frame, unless the person has moved it into another
 * field meanwhile: the packer who already tapped "Carrier" keeps typing there. A scanner's burst is
 * recognised wherever focus is, so leaving it in a field loses no scan.
 */
export function focusSoon(field: { current: HTMLElement | null }): void {
  requestAnimationFrame(() => {
    const active = document.activeElement;
    if (active === field.current || !isTextEntry(active)) field.current?.focus();
  });
}

/** A field a person types into; a ticked checkbox or a pressed button gives focus back. */
function isTextEntry(element: Element | null): boolean {
  if (element instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(element.type);
  return element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement;
}
