// A per-container write sequence (the LSN that session tokens and the change feed are numbered by). The
// server keeps no such number: its documents carry only a random `_etag` and a `_ts` in seconds. Every
// create, replace, upsert and patch ends in `Documents.prototype._set(doc)`, which returns the stored object,
// and every delete in `Documents.prototype.delete`, so wrapping both numbers each write. A replace is the
// server's delete followed by `_set`: it is one write (one LSN), as in Cosmos DB. Numbers live beside the
// documents (WeakMaps), so reads and queries return documents unchanged; the change feed adds `_lsn` to what
// it serves, as Cosmos DB does. A container has one partition key range, so its LSN is the range's LSN.
import { Documents } from "./internals.mjs";

const lsnByDocument = new WeakMap(); // stored document object -> LSN of the write that stored it
const lastLsnByContainer = new WeakMap(); // Documents instance (one per container) -> last LSN issued
const replacing = new WeakSet(); // Documents instances inside a replace (its inner delete is not a write)

function nextLsn(documents) {
  const lsn = lastLsn(documents) + 1;
  lastLsnByContainer.set(documents, lsn);
  return lsn;
}

export function installWriteSequence() {
  const serverSet = Documents.prototype._set;
  Documents.prototype._set = function setWithSequence(doc) {
    const stored = serverSet.call(this, doc);
    lsnByDocument.set(stored, nextLsn(this));
    return stored;
  };
  const serverDelete = Documents.prototype.delete;
  Documents.prototype.delete = function deleteWithSequence(...args) {
    serverDelete.apply(this, args); // throws when the document does not exist: no write, no LSN
    if (!replacing.has(this)) nextLsn(this);
  };
  const serverReplace = Documents.prototype.replace;
  Documents.prototype.replace = function replaceWithSequence(...args) {
    // Replaces do not nest (the server's replace calls only delete and _set), so a set is enough.
    return asOneWrite(this, () => serverReplace.apply(this, args));
  };
}

/** Runs `write` (a delete followed by a `_set`) as one write: one LSN, as a replace. */
export function asOneWrite(documents, write) {
  replacing.add(documents);
  try {
    return write();
  } finally {
    replacing.delete(documents);
  }
}

/** The last LSN issued in a container (0 before its first write). */
export const lastLsn = (documents) => lastLsnByContainer.get(documents) ?? 0;

/** The LSN of the write that stored this document object. */
export const lsnOf = (doc) => lsnByDocument.get(doc) ?? 0;

/** Sets the last LSN back, when the writes after it were undone (a failed transactional batch). */
export const resetLastLsn = (documents, lsn) => lastLsnByContainer.set(documents, lsn);
