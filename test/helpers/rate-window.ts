// The per-project request rate counts in fixed windows aligned to the clock (server/infra/ratelimit.ts), so a burst
// that crosses a window's edge is split between two windows and may never see its 429.
import { WINDOW_MS } from '../../server/infra/ratelimit.js';

/** Waits until at least `margin` ms remain in the current fixed window, so a burst lands in one window. */
export async function awayFromWindowEdge(margin = 15_000): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < margin) await new Promise((r) => setTimeout(r, left + 50));
}
