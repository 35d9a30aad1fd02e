// The internal API's dashboard users (spec/internal.yaml `internalCreateUser`).
import { createUser } from './users.js';
import type { Handler } from '../platform/pipeline.js';

export const internalCreateUser: Handler<'internalCreateUser'> = async (ctx) => ({
  status: 201,
  body: await createUser(ctx.app.db, ctx.body),
});
