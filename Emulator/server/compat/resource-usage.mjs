// `x-ms-resource-quota` / `x-ms-resource-usage`: Cosmos DB reports a container's limits and what it uses on
// container reads and document reads (`name=value;` pairs, sizes in KB; documentsCount -1 = unlimited). The
// server sends neither. The quota is Cosmos DB's (2 MB documents, unlimited count and size); the usage is
// measured on the stored documents (the sum of their JSON sizes, in KB rounded up), so it grows and shrinks
// with them.
//
// The total is kept up to date as documents are written, not measured at each read: serialising every
// document of a container whenever it had changed made each read after a write O(N) (10,000 documents of
// 1 KB, a replace then a point read in turn: 31.7 ms per read, 0.4 ms with the total kept).
// Every create, replace, upsert and patch ends in `Documents.prototype._set(doc)` and every delete in
// `Documents.prototype.delete` (internals.mjs); a replace is the server's delete followed by `_set` under the
// same resource id. Each wrapper compares the item stored under the document's resource id before and after
// the call and moves the total by the difference, so a replace (delete + set, or a set over a live rid) counts
// the old document out once and the new one in once, whatever the order. Stored documents are never modified
// in place (every write stores a new object), so a document's size, measured once when it is stored, holds
// until it is replaced or deleted. The one other writer of `_data`, a transactional batch's undo
// (documents-snapshot.mjs), puts the total back with the documents (`snapshotUsage`).
import { Documents } from "./internals.mjs";

const QUOTA = "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760;";

const totals = new WeakMap(); // Documents -> { bytes, count }: only for stores whose total has been measured once
const bytesByItem = new WeakMap(); // stored item -> its document's JSON size in bytes

function itemBytes(item) {
  let bytes = bytesByItem.get(item);
  if (bytes === undefined) {
    bytes = Buffer.byteLength(JSON.stringify(item.read()));
    bytesByItem.set(item, bytes);
  }
  return bytes;
}

// The full measurement (every stored document serialised): the first time a store is asked about, and again
// only if its count shows a write that bypassed the hooks (totalOf).
function measureUsage(documents) {
  let bytes = 0;
  for (const item of documents._data.values()) bytes += itemBytes(item);
  return { bytes, count: documents._data.size };
}

// Runs a write that may change what is stored under `rid`, and moves the store's total by what it changed,
// also when the write throws part-way. Stores not measured yet are left alone: their first measurement counts
// everything.
function accounted(documents, rid, write) {
  const total = totals.get(documents);
  if (!total || rid === undefined) return write();
  const before = documents._data.get(rid);
  try {
    return write();
  } finally {
    const after = documents._data.get(rid);
    if (before !== after) {
      if (before) {
        total.bytes -= itemBytes(before);
        total.count -= 1;
      }
      if (after) {
        total.bytes += itemBytes(after);
        total.count += 1;
      }
    }
  }
}

export function installResourceUsage() {
  const serverSet = Documents.prototype._set;
  Documents.prototype._set = function setWithUsage(doc) {
    return accounted(this, doc?._rid, () => serverSet.call(this, doc));
  };
  const serverDelete = Documents.prototype.delete;
  Documents.prototype.delete = function deleteWithUsage(idOrRid, partition, ...rest) {
    // The resource id the server's delete will remove (it throws when there is no such document: nothing changes).
    const rid = this._item("/id", idOrRid, partition).read()?._rid;
    return accounted(this, rid, () => serverDelete.call(this, idOrRid, partition, ...rest));
  };
}

function totalOf(documents) {
  let total = totals.get(documents);
  if (total && total.count !== documents._data.size) {
    // Something changed the documents without passing through `_set` / `delete` (a bug in this layer): say so
    // and measure again, so the header is still right.
    console.error(`compat:resource-usage: ${total.count} documents counted but ${documents._data.size} stored; a write bypassed Documents._set/delete, measuring again`);
    total = undefined;
  }
  if (!total) {
    total = measureUsage(documents);
    totals.set(documents, total);
  }
  return total;
}

/** The total kept for a store ({ bytes, count }), or undefined before its first measurement; reads nothing else. */
export function trackedUsage(documents) {
  const total = totals.get(documents);
  return total && { ...total };
}

/** Captures the store's total; the returned function puts it back (with the documents, after a failed batch). */
export function snapshotUsage(documents) {
  const total = totals.get(documents);
  const saved = total && { ...total };
  return function restore() {
    if (saved) totals.set(documents, { ...saved });
    else totals.delete(documents); // not measured when the snapshot was taken: measured afresh when next asked
  };
}

/** The `x-ms-resource-usage` value for a total of `bytes` over `count` documents. */
export function usageHeader(bytes, count, functions) {
  const kb = Math.ceil(bytes / 1024);
  return `functions=${functions};storedProcedures=0;triggers=0;documentSize=${Math.ceil(kb / 1024)};documentsSize=${kb};documentsCount=${count};collectionSize=${kb};`;
}

function usageOf(collection) {
  const { documents } = collection;
  const { bytes } = totalOf(documents);
  return usageHeader(bytes, documents._data.size, collection.userDefinedFunctions?._data?.size ?? 0);
}

/** The two headers for a container (its collection item from the account). */
export const resourceHeaders = (collection) => ({ "x-ms-resource-quota": QUOTA, "x-ms-resource-usage": usageOf(collection) });
