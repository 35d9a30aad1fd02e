declare module 'autocannon' {
  /** The parts of autocannon's result the benchmarks read (bench/lib/http.ts). */
  interface Result {
    requests: { average: number; mean: number; total: number };
    latency: { average: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  const autocannon: (opts: Record<string, unknown>) => Promise<Result>;
  export default autocannon;
}
