declare module 'xliff' {
  /** The one function the tests use (test/e2e/standalone/xliff-tools.test.ts), as the package's README documents it. */
  export function xliff2js(xml: string, cb: (err: Error | null, res: unknown) => void): void;
}
