// Load and answers over HTTP: autocannon runs in this process, against a server in a child process of its own
// (bench/lib/servers.ts).
import autocannon from 'autocannon';

/** The JSON body of an answer, read as `T` (the spec's type of the answer the scenario expects). */
export const json = <T>(res: Response) => res.json() as Promise<T>;

/** A request as autocannon takes it. */
interface AutocannonRequest {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Target {
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
