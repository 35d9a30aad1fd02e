declare module '@hapi/crumb' {
  import type { Plugin, Request, ResponseToolkit, ServerStateCookieOptions } from '@hapi/hapi';

  /** The options of @hapi/crumb 9 the dashboard sets (server/web/csrf.ts); its README lists them all. */
  interface CrumbOptions {
    key?: string;
    size?: number;
    autoGenerate?: boolean;
    addToViewContext?: boolean;
    cookieOptions?: ServerStateCookieOptions;
    skip?: (request: Request, h: ResponseToolkit) => boolean;
  }

  const Crumb: { plugin: Plugin<CrumbOptions> };
  export default Crumb;
}
