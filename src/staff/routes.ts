import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { responses, Success } from '../http/schemas';
import { respondWithWrite } from '../http/write';
import { tenantIdOf } from '../tenancy/tenants';
import { hashPin } from './pins';
import { CreateUserBody, SetPinBody, SetRoleBody, User, UserParams } from './schemas';
import { createUser, disableUser, listUsers, newUser, setUserPin, setUserRole, type UserView } from './users';

const route = { tags: ['operator'], security: [{ adminToken: [] }] };
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 63 }) });
/** The 200 answer of a write that changed one user. */
const userAnswer = (requestId: string) => ({ user }: { user: UserView }) => ({ body: { success: true as const, data: user, requestId } });

/** Operator API: the console's warehouse users of a tenant (docs/console.md). */
export const staffRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db;

  app.post(
    '/tenants/:slug/users',
    {
      schema: {
        ...route,
        operationId: 'createUser', summary: 'Create a warehouse user of the console; 409 when an active user of the tenant has the username',
        params: SlugParams,
        body: CreateUserBody,
        response: responses({ 201: Success(User) }, 404, 409),
      },
    },
    async (request, reply) => {
      const tenantId = await tenantIdOf(db, request.params.slug);
      const user = await newUser(request.body);
      return respondWithWrite(request, reply, {
        work: (tx) => createUser(tx, tenantId, user),
        answer: ({ user }) => ({ statusCode: 201, body: { success: true as const, data: user, requestId: request.id } }),
      });
    },
  );

  app.get(
    '/tenants/:slug/users',
    {
      schema: { ...route, operationId: 'listUsers', summary: "A tenant's warehouse users (never their PIN)", params: SlugParams, response: responses({ 200: Success(Type.Array(User)) }, 404) },
    },
    async (request) => ({ success: true as const, data: await listUsers(db, await tenantIdOf(db, request.params.slug)), requestId: request.id }),
  );

  app.post(
    '/users/:id/disable',
    {
      schema: {
        ...route,
        operationId: 'disableUser', summary: 'Disable a warehouse user: its sessions end and it can no longer sign in',
        params: UserParams,
        response: responses({ 200: Success(User) }, 404),
      },
    },
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => disableUser(tx, request.params.id),
        answer: userAnswer(request.id),
      }),
  );

  app.post(
    '/users/:id/pin',
    {
      schema: {
        ...route,
        operationId: 'setUserPin', summary: "Set a warehouse user's PIN: its sessions end; 409 for a disabled user",
        params: UserParams,
        body: SetPinBody,
        response: responses({ 200: Success(User) }, 404, 409),
      },
    },
    async (request, reply) => {
      const pinHash = await hashPin(request.body.pin);
      return respondWithWrite(request, reply, {
        work: (tx) => setUserPin(tx, request.params.id, pinHash),
        answer: userAnswer(request.id),
      });
    },
  );

  app.post(
    '/users/:id/role',
    {
      schema: {
        ...route,
        operationId: 'setUserRole', summary: "Set a warehouse user's role, from its next console request on; 409 for a disabled user",
        params: UserParams,
        body: SetRoleBody,
        response: responses({ 200: Success(User) }, 404, 409),
      },
    },
    async (request, reply) =>
      respondWithWrite(request, reply, {
        work: (tx) => setUserRole(tx, request.params.id, request.body.role),
        answer: userAnswer(request.id),
      }),
  );
};
