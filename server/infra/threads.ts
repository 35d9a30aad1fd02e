// Worker threads that do a project's background work (the publisher's renders, the checks' re-check) run at a lower
// priority than the event loop that answers every tenant's requests: piscina's `niceIncrement`, through its
// optional @napi-rs/nice (on Linux a thread's nice value is its own). With as many busy threads as cores, the loop
// otherwise waits its turn for the CPU (docs/decisions/0036-background-work-below-the-event-loop.md has the figures).
// Parsers of a pushed document or TMX file keep the default priority: the request that waits for them is theirs.

/** The nice increment of background worker threads (0 to 19; higher is lower priority). */
export const BACKGROUND_NICE = 10;
