/*
 * GS1 element strings, as a GS1-128, GS1 DataMatrix or GS1 QR scan hands them over (application
 * identifiers and their values, variable-length values ended by FNC1, transmitted as the GS
 * character) and in the human-readable form printed under the symbol: "(01)…(17)…(10)…".
 * Pure and dependency-free: the console's scan handling and the service share it
 * (docs/architecture.md says why no library was taken).
 */

/** The group separator a scanner transmits for FNC1 between elements. */
export const GS = '\u001d';

/** Symbology identifiers a scanner may send first: GS1-128, GS1 DataMatrix, GS1 QR Code, GS1 DataBar. */
const SYMBOLOGY_IDS = [']C1', ']d2', ']Q3', ']e0'];

type Kind = 'gtin' | 'digits' | 'date' | 'text' | 'count';

interface AiRule {
  title: string;
  kind: Kind;
  /** Fixed length, or the most a variable-length value has. */
  length: number;
  fixed: boolean;
}

/**
 * The application identifiers understood: the ones a pick needs (what, which lot, until when, how
 * many) and the others commonly printed beside them on a trade item's label, so that such a label
 * still reads. Any other AI is an error naming it: without its length the rest cannot be read.
 */
const AIS: Record<string, AiRule> = {
  '00': { title: 'SSCC', kind: 'digits', length: 18, fixed: true },
  '01': { title: 'GTIN', kind: 'gtin', length: 14, fixed: true },
  '02': { title: 'CONTENT', kind: 'gtin', length: 14, fixed: true },
  '10': { title: 'BATCH/LOT', kind: 'text', length: 20, fixed: false },
  '11': { title: 'PROD DATE', kind: 'date', length: 6, fixed: true },
  '15': { title: 'BEST BEFORE', kind: 'date', length: 6, fixed: true },
  '17': { title: 'USE BY', kind: 'date', length: 6, fixed: true },
  '20': { title: 'VARIANT', kind: 'digits', length: 2, fixed: true },
  '21': { title: 'SERIAL', kind: 'text', length: 20, fixed: false },
  '30': { title: 'VAR. COUNT', kind: 'count', length: 8, fixed: false },
  '37': { title: 'COUNT', kind: 'count', length: 8, fixed: false },
};

export class Gs1Error extends Error {
  constructor(
    message: string,
    /** The application identifier at fault, when one is. */
    readonly ai?: string,
  ) {
    super(message);
  }
}

export interface Gs1Element {
  ai: string;
  value: string;
}

/** What a scan of a GS1 element string tells. */
export interface Gs1Scan {
  elements: Gs1Element[];
  /** (01), or else (02): the GTIN-14 of the item or of the items contained. */
  gtin?: string;
  /** (10) */
  lot?: string;
  /** (17) as an ISO date (YYYY-MM-DD). */
  expiresOn?: string;
  /** (30) or (37): how many units. */
  count?: number;
}

/** The GS1 mod-10 check digit of the digits before it (any GS1 key length). */
export function gs1CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Weights 3, 1, 3... from the right of the digits the check digit follows.
    sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether `digits` end in their right check digit. */
export const hasValidCheckDigit = (digits: string) => /^\d{2,}$/.test(digits) && gs1CheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));

/**
 * A barcode as a GTIN-14 (zero-padded on the left), when it is a GTIN-8, -12, -13 or -14 with a
 * right check digit; null otherwise. GTINs of every length compare as their GTIN-14.
 */
export function asGtin14(barcode: string): string | null {
  if (!/^(\d{8}|\d{12,14})$/.test(barcode) || !hasValidCheckDigit(barcode)) return null;
  return barcode.padStart(14, '0');
}

/** Whether `text` is marked as a GS1 element string: a symbology identifier, the bracketed form, or FNC1 separators. */
export const isMarkedGs1 = (text: string) => SYMBOLOGY_IDS.some((id) => text.startsWith(id)) || /^\(\d{2,4}\)/.test(text) || text.includes(GS);

const lastDayOfMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * A YYMMDD date as an ISO date. The century is the GS1 rule's: the year lies from 49 years before
 * `today`'s to 50 after. Day 00 is the month's last day.
 */
export function gs1Date(value: string, today: Date, ai: string): string {
  const yy = Number(value.slice(0, 2));
  const month = Number(value.slice(2, 4));
  const day = Number(value.slice(4, 6));
  const currentYear = today.getUTCFullYear();
  const difference = yy - (currentYear % 100);
  const century = Math.floor(currentYear / 100) + (difference >= 51 ? -1 : difference <= -50 ? 1 : 0);
  const year = century * 100 + yy;
  if (month < 1 || month > 12) throw new Gs1Error(`(${ai}) ${value} has no month ${value.slice(2, 4)}`, ai);
  const last = lastDayOfMonth(year, month);
  if (day > last) throw new Gs1Error(`(${ai}) ${value} has no day ${value.slice(4, 6)} in its month`, ai);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(month)}-${pad(day === 0 ? last : day)}`;
}

/** GS1 AI encodable character set 82 (invariant ISO 646 graphics), which (10) and (21) take. */
const CSET82 = /^[!"%-?A-Z_a-z]+$/;

function checkValue(ai: string, rule: AiRule, value: string): void {
  const named = `(${ai}) ${rule.title}`;
  if (value.length === 0) throw new Gs1Error(`${named} is empty`, ai);
  if (rule.fixed ? value.length !== rule.length : value.length > rule.length) {
    throw new Gs1Error(`${named} takes ${rule.fixed ? '' : 'up to '}${rule.length} characters; got ${value.length}`, ai);
  }
  if (rule.kind === 'text') {
    if (!CSET82.test(value)) throw new Gs1Error(`${named} has a character GS1 does not allow: ${value}`, ai);
  } else if (!/^\d+$/.test(value)) {
    throw new Gs1Error(`${named} takes digits only; got ${value}`, ai);
  }
  if (rule.kind === 'gtin' && !hasValidCheckDigit(value)) {
    throw new Gs1Error(`${named} ${value} has a wrong check digit (expected ${gs1CheckDigit(value.slice(0, -1))})`, ai);
  }
}

/** The elements of the bracketed form: "(01)09521234543213(10)ABC". */
function bracketedElements(text: string): Gs1Element[] {
  const elements: Gs1Element[] = [];
  const pattern = /\((\d{2,4})\)([^(]*)/y;
  let match: RegExpExecArray | null;
  let read = 0;
  while ((match = pattern.exec(text)) !== null) {
    elements.push({ ai: match[1]!, value: match[2]! });
    read = pattern.lastIndex;
  }
  if (read !== text.length) throw new Gs1Error(`not a GS1 element string at "${text.slice(read)}"`);
  return elements;
}

/** The AI at the start of `rest`: the known two-digit AIs, else the first four digits are named. */
function aiAt(rest: string): string {
  const two = rest.slice(0, 2);
  if (two in AIS) return two;
  const digits = /^\d{2,4}/.exec(rest)?.[0];
  if (!digits) throw new Gs1Error(`not a GS1 element string at "${rest}"`);
  throw new Gs1Error(`unknown application identifier (${two}) at "${rest}"`, two);
}

/** The elements of the string a scanner transmits: fixed-length values end by their length, others at GS or the end. */
function transmittedElements(text: string): Gs1Element[] {
  const elements: Gs1Element[] = [];
  let rest = text.startsWith(GS) ? text.slice(1) : text;
  while (rest.length > 0) {
    const ai = aiAt(rest);
    const rule = AIS[ai]!;
    rest = rest.slice(ai.length);
    const end = rule.fixed ? rule.length : rest.includes(GS) ? rest.indexOf(GS) : rest.length;
    elements.push({ ai, value: rest.slice(0, end) });
    rest = rest.slice(end);
    if (rest.startsWith(GS)) rest = rest.slice(1);
  }
  if (elements.length === 0) throw new Gs1Error('an empty GS1 element string');
  return elements;
}

/**
 * Reads a GS1 element string in either form, with or without a symbology identifier. Throws
 * Gs1Error naming the AI for an unknown AI, a value of the wrong length or characters, a GTIN
 * whose check digit is wrong, or a date that does not exist.
 */
export function parseGs1(scanned: string, { today = new Date() }: { today?: Date } = {}): Gs1Scan {
  const id = SYMBOLOGY_IDS.find((prefix) => scanned.startsWith(prefix));
  const text = id ? scanned.slice(id.length) : scanned;
  const elements = text.startsWith('(') ? bracketedElements(text) : transmittedElements(text);
  const scan: Gs1Scan = { elements };
  const seen = new Set<string>();
  for (const { ai, value } of elements) {
    const rule = AIS[ai];
    if (!rule) throw new Gs1Error(`unknown application identifier (${ai})`, ai);
    if (seen.has(ai)) throw new Gs1Error(`(${ai}) ${rule.title} appears twice`, ai);
    seen.add(ai);
    checkValue(ai, rule, value);
    if (ai === '01' || (ai === '02' && scan.gtin === undefined)) scan.gtin = value;
    else if (ai === '10') scan.lot = value;
    else if (ai === '17') scan.expiresOn = gs1Date(value, today, ai);
    else if (rule.kind === 'date') gs1Date(value, today, ai);
    else if (rule.kind === 'count') scan.count = Number(value);
  }
  return scan;
}

/**
 * Writes elements as a GS1 element string: `bracketed`, the human-readable form, or `transmitted`,
 * as a scanner sends it (GS after each variable-length value but the last), behind `symbology`.
 */
export function formatGs1(elements: readonly Gs1Element[], form: 'bracketed' | 'transmitted', symbology = ''): string {
  if (form === 'bracketed') return symbology + elements.map(({ ai, value }) => `(${ai})${value}`).join('');
  return (
    symbology +
    elements
      .map(({ ai, value }, i) => {
        const variable = !AIS[ai]?.fixed;
        return `${ai}${value}${variable && i < elements.length - 1 ? GS : ''}`;
      })
      .join('')
  );
}
