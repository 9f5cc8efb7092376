// Opt-in latency: EMULATOR_LATENCY_MS=<ms> (default 0, off) answers every request on documents (point
// operations, queries, read feeds, change feeds, batches: paths under /dbs/{db}/colls/{coll}/docs) that many
// milliseconds later. On loopback every answer comes back in about a millisecond, so a client's concurrency
// (bulk, parallel queries, prefetch, a migration's pace) is never tested as it is across a network, where a
// client spends most of its time waiting. The delay is a timer before the request is handled, so the server's
// single thread keeps serving other requests meanwhile; container, database and offer requests and the
// test-only control routes (/_emulator/...) are answered at once.
export const MAX_LATENCY_MS = 10_000;

/** The configured latency in milliseconds (0 when unset); refuses anything but a whole number in range. */
export function configuredLatencyMs(env = process.env) {
  const raw = env.EMULATOR_LATENCY_MS;
  if (raw === undefined || raw === "") return 0;
  if (!/^\d+$/.test(raw) || Number(raw) > MAX_LATENCY_MS) {
    throw new Error(`EMULATOR_LATENCY_MS must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}, not '${raw}'`);
  }
  return Number(raw);
}
