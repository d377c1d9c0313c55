import { Type } from '@sinclair/typebox';
import { PATTERN_RULE } from '../http/errors';
import { IsoDateTime } from '../http/schemas';

export const ROLES = ['picker', 'packer', 'supervisor'] as const;
export const RoleSchema = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  { description: 'picker: picking; packer: packing; supervisor: everything in the console' },
);

export const Username = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9._-]+$',
  [PATTERN_RULE]: 'must be letters, digits, dots, underscores and hyphens',
  description: 'Letters, digits, dots, underscores and hyphens; case-insensitive (stored lower-case)',
});

const Pin = Type.String({ pattern: '^[0-9]{6,12}$', [PATTERN_RULE]: 'must be 6 to 12 digits', description: '6 to 12 digits; stored as a scrypt hash, never shown again' });

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  username: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  disabled: Type.Boolean(),
  createdAt: IsoDateTime,
});

export const CreateUserBody = Type.Object({
  username: Username,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  role: RoleSchema,
  pin: Pin,
});

export const SetPinBody = Type.Object({ pin: Pin });
export const SetRoleBody = Type.Object({ role: RoleSchema });

export const UserParams = Type.Object({ id: Type.String({ format: 'uuid' }) });
