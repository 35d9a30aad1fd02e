// The process's event-loop delay and memory, for GET /internal/v1/debug/metrics: whether synchronous work made
// other clients wait. One histogram per process (the event loop is the process's), started with the service.
import { monitorEventLoopDelay } from 'node:perf_hooks';

// 10 ms: fine enough to see a 50 ms stall, coarse enough to cost nothing.
const RESOLUTION_MS = 10;

let histogram: ReturnType<typeof monitorEventLoopDelay> | null = null;
let since = Date.now();

/** Starts measuring (once per process; later calls keep the running window). */
export function startEventLoopMonitor(): void {
  if (histogram) return;
  histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  since = Date.now();
}

// Node records the whole interval between samples, the resolution's own wait included (nodejs/node#34661): the
// delay is what exceeds it.
const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);

interface ProcessMetrics {
  eventLoopDelay: { p50Ms: number; p99Ms: number; maxMs: number; meanMs: number; samples: number };
  since: string;
  rssBytes: number;
  heapUsedBytes: number;
}

/** The window's event-loop delay (how late each sample fired, in ms) and memory now; `reset` starts a new window. */
export function processMetrics(reset = false): ProcessMetrics {
  startEventLoopMonitor();
  const h = histogram!;
  const samples = h.count;
  const mem = process.memoryUsage();
  const out: ProcessMetrics = {
    eventLoopDelay: {
      p50Ms: samples ? ms(h.percentile(50)) : 0,
      p99Ms: samples ? ms(h.percentile(99)) : 0,
      maxMs: samples ? ms(h.max) : 0,
      meanMs: samples ? ms(h.mean) : 0,
      samples,
    },
    since: new Date(since).toISOString(),
    rssBytes: mem.rss,
    heapUsedBytes: mem.heapUsed,
  };
  if (reset) {
    h.reset();
    since = Date.now();
  }
  return out;
}
