// Shared pieces of the HTTP scenarios: servers run in child processes so the load generator (autocannon, in
// this process) and the server each get a core of their own.
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

/** What _service-server.ts prints after READY. */
export interface ServiceInfo {
  /** The public API, `.../v1`. */
  base: string;
  projects: Array<{ projectId: string; apiKey: string }>;
  adminUrl: string;
  databaseUrl: string;
  objectsDir: string;
  /** The delivery origin, `.../v1`. */
  delivery: string;
}

/** The JSON body of an answer, read as `T` (the spec's type of the answer the scenario expects). */
export const json = <T>(res: Response) => res.json() as Promise<T>;

/** Starts `script` in a child process; resolves once it prints `READY <json>`, with that JSON read as `Info`. */
export async function spawnServer<Info>(
  script: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; info: Info }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<Info>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      // Only a complete line: the READY payload can span several chunks.
      const m = /^READY (.*)\n/m.exec(buf);
      if (m) resolve(JSON.parse(m[1]) as Info);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, info };
}

/** A request as autocannon takes it. */
interface AutocannonRequest {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Target {
  url: string;
  requests?: Array<
    AutocannonRequest & {
      path: string;
      /** Called for each request sent: returns the request to send. */
      setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
    }
  >;
}

export async function requestsPerSecond(target: Target, seconds = 5, connections = 16): Promise<number> {
  const { url, requests } = target;
  await autocannon({ url, requests, connections, duration: 1 }); // warm-up
  const r = await autocannon({ url, requests, connections, duration: seconds });
  if (r.non2xx || r.errors)
    throw new Error(`${url}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors`);
  return r.requests.average;
}
