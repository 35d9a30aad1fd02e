// A browser in miniature for the dashboard's pages over real HTTP: a cookie jar, no redirects followed, and form
// posts with the page's CSRF token and this origin, as a browser sends them.
export class FormBrowser {
  jar = new Map<string, string>();
  constructor(private readonly origin: string) {}

  async fetch(path: string, form?: Record<string, string>): Promise<Response> {
    const headers = new Headers();
    if (this.jar.size) headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    if (form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      headers.set('origin', this.origin);
    }
    const r = await fetch(this.origin + path, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    for (const c of r.headers.getSetCookie()) {
      const [name, value] = c.split(';')[0].split('=');
      if (!value || /Max-Age=0/.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return r;
  }

  /** The CSRF value of the forms of the page at `path`. */
  async csrfOf(path: string): Promise<string> {
    return /name="csrf" value="([^"]+)"/.exec(await (await this.fetch(path)).text())![1];
  }

  async signIn(email: string, password: string): Promise<Response> {
    const csrf = await this.csrfOf('/signin');
    return this.fetch('/signin', { csrf, email, password, next: '/' });
  }

  /**
   * Signs `who` in as a person would when the service says to try again: the sign-in throttle
   * (server/domain/users/throttle.ts) answers 429 to tests signing the same person in at once, and a loaded machine
   * may answer 503 (password checks queued, or a write that lost to another) with a Retry-After. Waits it out, at
   * most four attempts; a last refusal names what the page said.
   */
  async signInWaiting(who: { email: string; password: string }): Promise<this> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.signIn(who.email, who.password);
      if (r.status === 303) return this;
      const said = (await r.text())
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .slice(0, 300);
      if (![429, 503].includes(r.status) || attempt === 3) throw new Error(`sign-in: ${r.status}: ${said}`);
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(r.headers.get('retry-after') ?? 1)));
    }
  }

  /** Posts `form` to `path` with the CSRF token of the page at `from`. */
  async post(path: string, form: Record<string, string> = {}, from = path): Promise<Response> {
    return this.fetch(path, { csrf: await this.csrfOf(from), ...form });
  }
}
