/**
 * Fields of a body that its schema does not declare. Validation lets them through (a client may
 * send more than the API reads, such as a record it read back) and the write never reads them, so
 * they are answered as warnings: a misspelt field (`"stok": 5`) would otherwise be saved as if it
 * had not been sent, without a word.
 *
 * Only objects whose schema declares its fields are looked into; an object open to any key
 * (`metadata`) holds no unknown field.
 */

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, ObjectSchema>;
  additionalProperties?: unknown;
  items?: ObjectSchema;
  anyOf?: ObjectSchema[];
}

/** Declared fields of a closed object schema, and the schemas of those worth looking into. */
interface Shape {
  fields: Set<string>;
  /** Lower-cased field -> field, for suggestions that differ only in case. */
  byLowerCase: Map<string, string>;
  children: Map<string, ObjectSchema>;
}

const shapes = new WeakMap<object, Shape | null>();

/** The shape of an object schema that declares its fields and takes no others by name; null otherwise. */
function shapeOf(schema: ObjectSchema): Shape | null {
  let shape = shapes.get(schema);
  if (shape !== undefined) return shape;
  const declared = schema.properties;
  shape =
    declared && schema.additionalProperties === undefined
      ? {
          fields: new Set(Object.keys(declared)),
          byLowerCase: new Map(Object.keys(declared).map((field) => [field.toLowerCase(), field])),
          children: new Map(Object.entries(declared).filter(([, child]) => mayHoldFields(child))),
        }
      : null;
  shapes.set(schema, shape);
  return shape;
}

const mayHoldFields = (schema: ObjectSchema): boolean =>
  schema.properties !== undefined || schema.items !== undefined || (schema.anyOf ?? []).some(mayHoldFields);

/** The field of `shape` that `sent` most likely meant: the same but for case, or one or two letters off. */
function likelyMeant(sent: string, shape: Shape): string | undefined {
  const sameButCase = shape.byLowerCase.get(sent.toLowerCase());
  if (sameButCase) return sameButCase;
  let best: { field: string; distance: number } | undefined;
  for (const field of shape.fields) {
    const allowed = Math.min(2, Math.floor(Math.min(field.length, sent.length) / 3));
    if (Math.abs(field.length - sent.length) > allowed) continue;
    const distance = editDistance(sent.toLowerCase(), field.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, (rows[i - 2]![j - 2] as number) + 1);
    }
  }
  return rows[a.length]![b.length] as number;
}

const pathOf = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

export interface IgnoredFieldsOptions {
  /** What the body is, as the warnings name it: `a product`, `an order`. */
  subject: string;
  /** Fields the service answers but a request cannot set (`id`, `createdAt`): ignored with their own words. */
  readOnly?: ReadonlySet<string>;
  /** The body's own path in the request (`products[1]` in a batch); its fields are named under it. */
  at?: string;
}

/**
 * One warning per field of `body` that `schema` does not declare, at any depth, in the order they
 * were sent: `stok is not a field of a product (did you mean stock?); it was ignored`.
 */
export function ignoredFieldWarnings(schema: object, body: unknown, { subject, readOnly, at = '' }: IgnoredFieldsOptions): string[] {
  const warnings: string[] = [];
  /** `owner` names the object in the warnings: the subject for the body itself, its path below it. */
  const visit = (node: ObjectSchema, value: unknown, path: string, owner: string, top: boolean) => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      if (node.items) value.forEach((item, index) => visit(node.items as ObjectSchema, item, pathOf(path, index), pathOf(path, index), false));
      return;
    }
    const shape = shapeOf(node.anyOf?.find((branch) => branch.properties !== undefined) ?? node);
    if (!shape) return;
    for (const [key, child] of Object.entries(value)) {
      const field = pathOf(path, key);
      if (shape.fields.has(key)) {
        const childSchema = shape.children.get(key);
        if (childSchema) visit(childSchema, child, field, field, false);
      } else if (top && readOnly?.has(key)) {
        warnings.push(`${field} is set by the service, not by a request; it was ignored`);
      } else {
        const meant = likelyMeant(key, shape);
        warnings.push(`${field} is not a field of ${owner}${meant ? ` (did you mean ${pathOf(path, meant)}?)` : ''}; it was ignored`);
      }
    }
  };
  visit(schema as ObjectSchema, body, at, subject, true);
  return warnings;
}

/** The fields of a resource as answered that are not fields of it as sent: set by the service. */
export function readOnlyFields(answered: object, sent: object): ReadonlySet<string> {
  const sentFields = new Set(Object.keys((sent as ObjectSchema).properties ?? {}));
  return new Set(Object.keys((answered as ObjectSchema).properties ?? {}).filter((field) => !sentFields.has(field)));
}
