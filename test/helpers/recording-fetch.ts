// A fetch for the runtime client's tests that passes every request on and records it: `METHOD url status`
// (status 0: a network failure; ` conditional` when it carried If-None-Match), with the JSON bodies of POSTs and
// their answers, and when each was sent (`at`). `fail` makes the next request matching it fail as a network
// failure would.
interface Recorded {
  line: string;
  at: number;
  body?: unknown;
  answer?: unknown;
}

export function recordingFetch() {
  const requests: Recorded[] = [];
  const failing: RegExp[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = init?.method ?? 'GET';
    const conditional = new Headers(init?.headers).has('if-none-match') ? ' conditional' : '';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const at = Date.now();
    const i = failing.findIndex((re) => re.test(`${method} ${url}`));
    if (i >= 0) {
      failing.splice(i, 1);
      requests.push({ line: `${method} ${url} 0${conditional}`, at, body });
      throw new TypeError('fetch failed');
    }
    try {
      const res = await fetch(input, init);
      const answer = method === 'POST' ? ((await res.clone().json()) as unknown) : undefined;
      requests.push({ line: `${method} ${url} ${res.status}${conditional}`, at, body, answer });
      return res;
    } catch (err) {
      requests.push({ line: `${method} ${url} 0${conditional}`, at, body });
      throw err;
    }
  };
  return {
    requests,
    /** The request lines. */
    get seen() {
      return requests.map((r) => r.line);
    },
    fetch: fetcher,
    /** The next request whose `METHOD url` matches fails as a network failure. */
    fail(re: RegExp) {
      failing.push(re);
    },
  };
}
