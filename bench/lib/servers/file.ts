// Baseline of the pull scenario (bench/pull.ts): a bare Node `http` server answering every GET with the bytes of FILE, read from
// disk per request (no framework, no database, no cache): what answering a pull from a file costs at the least.
import { readFile } from 'node:fs/promises';
import http from 'node:http';

const file = process.env.FILE!;
const server = http.createServer((_req, res) => {
  void readFile(file).then((body) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as import('node:net').AddressInfo;
  console.log(`READY ${JSON.stringify({ url: `http://127.0.0.1:${port}` })}`);
});
