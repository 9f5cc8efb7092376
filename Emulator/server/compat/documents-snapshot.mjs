// Undo for a container's documents: a transactional batch that fails part-way must leave nothing behind.
// A container's documents are three fields of the server's `Documents` store (see internals.mjs): `_data`
// (rid -> item, in write order), `_index` (unique key -> rid) and `_ridCount`; plus the write sequence
// (LSN per range) and the stored-bytes total (resource-usage.mjs) of this layer. Stored document objects are
// never modified in place (every write stores a new object), so copies of the two maps restore every
// document, its order, its LSN and its size exactly.
import { snapshotUsage } from "./resource-usage.mjs";
import { rangeLsns, resetLsns } from "./write-sequence.mjs";

// The maps are refilled rather than replaced: the server's objects keep the references they hold.
function refill(target, source) {
  target.clear();
  for (const [key, value] of source) target.set(key, value);
}

/** Takes a snapshot; the returned function puts the container back to it. */
export function snapshotDocuments(documents) {
  const data = new Map(documents._data);
  const index = new Map(documents._index);
  const ridCount = documents._ridCount;
  const lsns = rangeLsns(documents);
  // Refilling the maps bypasses the hooks that keep the total, so the total is put back beside them.
  const restoreUsage = snapshotUsage(documents);
  return function restore() {
    refill(documents._data, data);
    refill(documents._index, index);
    documents._ridCount = ridCount;
    resetLsns(documents, lsns);
    restoreUsage();
  };
}
