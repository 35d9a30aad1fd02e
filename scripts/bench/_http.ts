// Shared pieces of the HTTP scenarios: servers run in child processes so the load generator (autocannon, in
// this process) and the server each get a core of their own.
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export async function spawnServer(
  script: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<any>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      // Only a complete line: the READY payload can span several chunks.
      const m = /^READY (.*)\n/m.exec(buf);
      if (m) resolve(JSON.parse(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info };
}

export interface Target {
  url: string;
  requests?: Array<{
    path: string;
    method?: string;
    headers?: Record<string, string>;
    setupRequest?: (req: any) => any;
  }>;
}

export async function requestsPerSecond(target: Target, seconds = 5, connections = 16): Promise<number> {
  const { url, requests } = target;
  await autocannon({ url, requests, connections, duration: 1 }); // warm-up
  const r = await autocannon({ url, requests, connections, duration: seconds });
  if (r.non2xx || r.errors)
    throw new Error(`${url}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors`);
  return r.requests.average;
}
