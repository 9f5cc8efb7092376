// Write sequence numbers (LSNs), per partition key range, as Cosmos DB numbers the writes of each physical
// partition; session tokens and the change feed are numbered by them. The server keeps no such number: its
// documents carry only a random `_etag` and a `_ts` in seconds. Every create, replace, upsert and patch ends
// in `Documents.prototype._set(doc)`, which returns the stored object, and every delete in
// `Documents.prototype.delete`, so wrapping both numbers each write in the range that holds the document
// (partitions/ranges.mjs). A replace is the server's delete followed by `_set`: it is one write (one LSN),
// as in Cosmos DB. Numbers live beside the documents (WeakMaps), so reads and queries return documents
// unchanged; the change feed adds `_lsn` to what it serves, as Cosmos DB does.
import { Documents } from "./internals.mjs";
import { layoutOf, rangeOfDocument } from "./partitions/ranges.mjs";

const lsnByDocument = new WeakMap(); // stored document object -> LSN of the write that stored it
const replacing = new WeakSet(); // Documents instances inside a replace (its inner delete is not a write)

function nextLsn(documents, doc) {
  const range = rangeOfDocument(documents, doc);
  range.lsn += 1;
  return range.lsn;
}

export function installWriteSequence() {
  const serverSet = Documents.prototype._set;
  Documents.prototype._set = function setWithSequence(doc) {
    const stored = serverSet.call(this, doc);
    lsnByDocument.set(stored, nextLsn(this, stored));
    return stored;
  };
  const serverDelete = Documents.prototype.delete;
  Documents.prototype.delete = function deleteWithSequence(idOrRid, partition, ...rest) {
    const doc = this._item("/id", idOrRid, partition).read();
    serverDelete.call(this, idOrRid, partition, ...rest); // throws when the document does not exist: no write, no LSN
    if (!replacing.has(this)) nextLsn(this, doc);
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

/** The LSN of the write that stored this document object. */
export const lsnOf = (doc) => lsnByDocument.get(doc) ?? 0;

/** Every live range's LSN (range id -> LSN), to put back with `resetLsns`. */
export const rangeLsns = (documents) => new Map(layoutOf(documents).ranges.map((range) => [range.id, range.lsn]));

/** Sets the ranges' LSNs back, when the writes after them were undone (a failed transactional batch). */
export function resetLsns(documents, lsns) {
  for (const range of layoutOf(documents).ranges) {
    if (lsns.has(range.id)) range.lsn = lsns.get(range.id);
  }
}
