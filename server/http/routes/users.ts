// The internal API's dashboard users (spec/internal.yaml `internalCreateUser`, `internalListUsers`,
// `internalUpdateUser`). Owners only (no x-roles).
import { createUser, listUsers, setUserRole } from '../../domain/users/users.js';
import type { Handler } from '../pipeline.js';

export const internalCreateUser: Handler<'internalCreateUser'> = async (ctx) => ({
  status: 201,
  body: await createUser(ctx.app.db, ctx.body),
});

export const internalListUsers: Handler<'internalListUsers'> = async (ctx) => ({
  body: { users: await listUsers(ctx.app.db) },
});

export const internalUpdateUser: Handler<'internalUpdateUser'> = async (ctx) => ({
  body: await setUserRole(ctx.app.db, ctx.params.userId, ctx.body.role),
});
