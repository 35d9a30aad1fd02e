// The internal API's dashboard users (spec/internal.yaml `internalCreateUser`, `internalListUsers`,
// `internalUpdateUser`, `internalDeleteUser`, `internalResetUserPassword`, `internalEndUserSessions`: owners only,
// no x-roles; `internalChangeOwnPassword`: any signed-in person, for themselves).
import {
  changeOwnPassword,
  createUser,
  endUserSessions,
  listUsers,
  removeUser,
  resetPassword,
  updateUser,
} from '../../domain/users/users.js';
import { invalidArgument } from '../../infra/errors.js';
import type { Handler } from '../pipeline.js';

export const internalCreateUser: Handler<'internalCreateUser'> = async (ctx) => ({
  status: 201,
  body: await createUser(ctx.app.db, ctx.body, ctx.app.config.passwordScryptN),
});

export const internalListUsers: Handler<'internalListUsers'> = async (ctx) => ({
  body: { users: await listUsers(ctx.app.db) },
});

export const internalUpdateUser: Handler<'internalUpdateUser'> = async (ctx) => ({
  body: await updateUser(ctx.app.db, ctx.params.userId, ctx.body),
});

export const internalDeleteUser: Handler<'internalDeleteUser'> = async (ctx) => {
  await removeUser(ctx.app.db, ctx.params.userId);
  return { status: 204 };
};

export const internalResetUserPassword: Handler<'internalResetUserPassword'> = async (ctx) => {
  await resetPassword(ctx.app.db, ctx.params.userId, ctx.body.password, ctx.app.config.passwordScryptN);
  return { status: 204 };
};

export const internalEndUserSessions: Handler<'internalEndUserSessions'> = async (ctx) => ({
  body: { ended: await endUserSessions(ctx.app.db, ctx.params.userId) },
});

export const internalChangeOwnPassword: Handler<'internalChangeOwnPassword'> = async (ctx) => {
  // The admin token is nobody: there is no own password to change.
  if (!ctx.actor)
    throw invalidArgument(
      'Only a signed-in person has a password to change; an owner resets one with PUT /users/{userId}/password.',
    );
  await changeOwnPassword(
    ctx.app.db,
    ctx.actor.userId,
    ctx.body.currentPassword,
    ctx.body.password,
    ctx.app.config.passwordScryptN,
  );
  return { status: 204 };
};
