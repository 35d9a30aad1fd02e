// Baseline: a bare Hapi route returning a constant JSON body.
import Hapi from '@hapi/hapi';

const server = Hapi.server({ port: 0, host: '127.0.0.1' });
server.route({
  method: 'GET',
  path: '/v1/projects/{projectId}/credential',
  handler: () => ({ scopes: ['admin'], requires_operation_approval: false }),
});
await server.start();
console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${server.info.port}` })}`);
