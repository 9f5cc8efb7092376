// A per-container write sequence (the LSN the change feed is paged by). The server keeps no such number:
// its documents carry only a random `_etag` and a `_ts` in seconds. Every create, replace, upsert and patch
// ends in `Documents.prototype._set(doc)`, which returns the stored object, so wrapping it numbers each
// stored version. Numbers live beside the documents (WeakMaps), so reads and queries return documents
// unchanged; the change feed adds `_lsn` to what it serves, as Cosmos DB does.
import { Documents } from "./internals.mjs";

const lsnByDocument = new WeakMap(); // stored document object -> LSN of the write that stored it
const lastLsnByContainer = new WeakMap(); // Documents instance (one per container) -> last LSN issued

export function installWriteSequence() {
  const serverSet = Documents.prototype._set;
  Documents.prototype._set = function setWithSequence(doc) {
    const stored = serverSet.call(this, doc);
    const lsn = lastLsn(this) + 1;
    lastLsnByContainer.set(this, lsn);
    lsnByDocument.set(stored, lsn);
    return stored;
  };
}

/** The last LSN issued in a container (0 before its first write). */
export const lastLsn = (documents) => lastLsnByContainer.get(documents) ?? 0;

/** The LSN of the write that stored this document object. */
export const lsnOf = (doc) => lsnByDocument.get(doc) ?? 0;

/** Sets the last LSN back, when the writes after it were undone (a failed transactional batch). */
export const resetLastLsn = (documents, lsn) => lastLsnByContainer.set(documents, lsn);

/**
 * The session token of a container's current state, `<partition key range>:<version>#<global LSN>`. The change
 * feed estimator takes the global LSN from it as the latest write, to subtract the LSN it has read up to.
 */
export const sessionToken = (documents) => `0:-1#${lastLsn(documents)}`;
