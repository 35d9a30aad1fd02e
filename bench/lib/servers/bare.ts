// Baseline of the credential scenario (bench/credential.ts): a bare Node `http` server answering GET /credential with the JSON and
// headers the service answers for the bench's keys (scope `read`), and 404 for any other path. No framework, no
// database: the floor any Node server pays per request on this machine.
import http from 'node:http';

const BODY = JSON.stringify({ scopes: ['read'], requires_operation_approval: false });
const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-cache',
  'content-length': String(Buffer.byteLength(BODY)),
};
const ROUTE = /^\/v1\/projects\/[^/]+\/credential$/;

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && ROUTE.test(req.url ?? '') && req.headers.authorization) {
    res.writeHead(200, HEADERS);
    res.end(BODY);
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
  res.end('{"error":"not_found","message":"No such route."}');
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as import('node:net').AddressInfo;
  console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}` })}`);
});
