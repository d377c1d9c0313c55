import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GS, Gs1Error, asGtin14, formatGs1, gs1CheckDigit, hasValidCheckDigit, isMarkedGs1, parseGs1, type Gs1Element } from '../../src/catalog/gs1';

const TODAY = new Date('2026-12-07T12:00:00Z');
const parse = (text: string, today = TODAY) => parseGs1(text, { today });
const refusal = (text: string, today = TODAY) => {
  try {
    parse(text, today);
  } catch (error) {
    if (error instanceof Gs1Error) return { message: error.message, ai: error.ai };
    throw error;
  }
  throw new Error(`${text} was read`);
};

describe('GS1 check digits', () => {
  it("computes the General Specifications' worked example (GTIN-13 629104150021 → 3)", () => {
    expect(gs1CheckDigit('629104150021')).toBe(3);
  });

  it("accepts the General Specifications' example keys and refuses them with another last digit", () => {
    for (const key of ['09521234543213', '95012345678903', '106141412345678908', '96385074', '614141000036']) {
      expect(hasValidCheckDigit(key)).toBe(true);
      expect(hasValidCheckDigit(key.slice(0, -1) + ((Number(key.at(-1)) + 1) % 10))).toBe(false);
    }
  });

  it('compares GTIN-8, -12 and -13 barcodes as zero-padded GTIN-14s, and nothing else', () => {
    expect(asGtin14('96385074')).toBe('00000096385074');
    expect(asGtin14('614141000036')).toBe('00614141000036');
    expect(asGtin14('9521234543213')).toBe('09521234543213');
    expect(asGtin14('9521234543214')).toBeNull();
    expect(asGtin14('MUG-RED')).toBeNull();
    expect(asGtin14('123456789')).toBeNull();
  });
});

describe('GS1 element strings', () => {
  it('reads the bracketed human-readable form: GTIN, expiry, lot', () => {
    expect(parse('(01)09521234543213(17)271231(10)LOT-42A')).toMatchObject({ gtin: '09521234543213', expiresOn: '2027-12-31', lot: 'LOT-42A' });
  });

  it('reads what a scanner transmits, FNC1 as GS after a variable-length value, with a symbology identifier', () => {
    for (const id of [']C1', ']d2', ']Q3', '']) {
      expect(parse(`${id}0109521234543213` + `10ABC123${GS}` + `17270615` + '3712')).toMatchObject({
        gtin: '09521234543213',
        lot: 'ABC123',
        expiresOn: '2027-06-15',
        count: 12,
      });
    }
  });

  it('reads a leading FNC1 as scanners may send it, and a variable-length value ending the string', () => {
    expect(parse(`${GS}010952123454321330250`)).toMatchObject({ gtin: '09521234543213', count: 250 });
  });

  it('takes (02) as the GTIN when there is no (01), with its (37) count', () => {
    expect(parse('(00)106141412345678908(02)09521234543213(37)24')).toMatchObject({ gtin: '09521234543213', count: 24 });
  });

  it('reads day 00 of (17) as the last day of its month, leap years included', () => {
    expect(parse('(17)280200').expiresOn).toBe('2028-02-29');
    expect(parse('(17)270200').expiresOn).toBe('2027-02-28');
    expect(parse('(17)270400').expiresOn).toBe('2027-04-30');
  });

  it('puts the year from 49 years back to 50 ahead of today (the GS1 century rule)', () => {
    expect(parse('(17)760101').expiresOn).toBe('2076-01-01');
    expect(parse('(17)770101').expiresOn).toBe('1977-01-01');
    expect(parse('(17)300101', new Date('2080-06-01T00:00:00Z')).expiresOn).toBe('2130-01-01');
    expect(parse('(17)310101', new Date('2080-06-01T00:00:00Z')).expiresOn).toBe('2031-01-01');
  });

  it('refuses a GTIN with a wrong check digit, naming the AI and the digit expected', () => {
    expect(refusal('(01)09521234543214(10)A')).toEqual({ ai: '01', message: '(01) GTIN 09521234543214 has a wrong check digit (expected 3)' });
    expect(refusal('0209521234543219').ai).toBe('02');
  });

  it('refuses an unknown application identifier, naming it, in both forms', () => {
    expect(refusal('(01)09521234543213(99)X').ai).toBe('99');
    expect(refusal(`]C10109521234543213${'99'}X`).ai).toBe('99');
  });

  it('refuses values of the wrong length or characters, and dates that do not exist', () => {
    expect(refusal('(01)0952123454321').ai).toBe('01');
    expect(refusal('(10)ABCDEFGHIJKLMNOPQRSTU').ai).toBe('10');
    expect(refusal('(37)123456789').ai).toBe('37');
    expect(refusal('(37)1A').ai).toBe('37');
    expect(refusal('(17)271301').ai).toBe('17');
    expect(refusal('(17)270230').ai).toBe('17');
    expect(refusal('(10)LOT#1').ai).toBe('10');
  });

  it('tells a marked GS1 string from a plain barcode', () => {
    expect(isMarkedGs1('(01)09521234543213')).toBe(true);
    expect(isMarkedGs1(']d20109521234543213')).toBe(true);
    expect(isMarkedGs1(`0109521234543213${GS}`)).toBe(true);
    expect(isMarkedGs1('9521234543213')).toBe(false);
    expect(isMarkedGs1('MUG (red)')).toBe(false);
  });
});

describe('GS1 element strings, properties', () => {
  const digits = (length: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((d) => d.join(''));
  const gtin = digits(13).map((body) => body + gs1CheckDigit(body));
  const lot = fc.stringMatching(/^[A-Za-z0-9\-./]{1,20}$/);
  const date = fc.date({ min: new Date('1977-01-01T00:00:00Z'), max: new Date('2076-12-31T00:00:00Z'), noInvalidDate: true });
  const count = fc.integer({ min: 1, max: 99_999_999 });
  const scan = fc.record({ gtin, lot: fc.option(lot, { nil: undefined }), expiresOn: fc.option(date, { nil: undefined }), count: fc.option(count, { nil: undefined }) });
  const yymmdd = (d: Date) => d.toISOString().slice(2, 10).replaceAll('-', '');

  it('formatting elements, then reading them, gives them back, in either form and any order', () => {
    fc.assert(
      fc.property(scan, fc.boolean(), fc.constantFrom('', ']C1', ']d2', ']Q3'), fc.integer({ min: 0, max: 5 }), (s, bracketed, id, rotation) => {
        const elements: Gs1Element[] = [
          { ai: '01', value: s.gtin },
          ...(s.lot === undefined ? [] : [{ ai: '10', value: s.lot }]),
          ...(s.expiresOn === undefined ? [] : [{ ai: '17', value: yymmdd(s.expiresOn) }]),
          ...(s.count === undefined ? [] : [{ ai: '37', value: String(s.count) }]),
        ];
        const turn = rotation % elements.length;
        const ordered = [...elements.slice(turn), ...elements.slice(0, turn)];
        const read = parse(formatGs1(ordered, bracketed ? 'bracketed' : 'transmitted', id));
        expect({ ...read }).toEqual({
          elements: ordered,
          gtin: s.gtin,
          ...(s.lot === undefined ? {} : { lot: s.lot }),
          ...(s.count === undefined ? {} : { count: s.count }),
          ...(s.expiresOn === undefined ? {} : { expiresOn: s.expiresOn.toISOString().slice(0, 10) }),
        });
      }),
    );
  });

  it('a GTIN with any other last digit is refused', () => {
    fc.assert(
      fc.property(gtin, fc.integer({ min: 1, max: 9 }), (valid, shift) => {
        const wrong = `0${valid.slice(0, -1)}${(Number(valid.at(-1)) + shift) % 10}`;
        expect(() => parse(`(01)${wrong}`)).toThrow(Gs1Error);
      }),
    );
  });
});
