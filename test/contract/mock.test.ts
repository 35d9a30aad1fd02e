// `npm run mock`: Prism serves the spec, and the SDK talks to it like to the real service.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import { createClient } from '../../sdk/client.js';

const root = path.resolve(import.meta.dirname, '../..');

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
});

test('the Prism mock serves the spec and the SDK calls it', async (t) => {
  const port = await freePort();
  const prism = spawn(process.execPath, [path.join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', '-h', '127.0.0.1', '-p', String(port), 'spec/openapi.yaml'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  prism.stdout.on('data', (d) => { log += d; });
  prism.stderr.on('data', (d) => { log += d; });
  try {
    const deadline = Date.now() + 60_000;
    while (!/Prism is listening/.test(log)) {
      if (Date.now() > deadline || prism.exitCode !== null) throw new Error(`prism did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'glk_aaaaaaaaaaaa_' + 'a'.repeat(43) });
    const pricing = await client.GET('/pricing');
    t.is(pricing.response.status, 200);
    t.true(Array.isArray(pricing.data!.plans));
    const cred = await client.GET('/projects/{projectId}/credential', { params: { path: { projectId: 'p_demo' } } });
    t.is(cred.response.status, 200);
    t.true(Array.isArray(cred.data!.scopes));
  } finally {
    prism.kill();
  }
});
