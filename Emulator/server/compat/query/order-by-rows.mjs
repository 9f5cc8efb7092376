// The rows of an ORDER BY query as the .NET SDK's cross-partition ORDER BY merge needs them from each range. The
// SDK sends each range a rewritten query whose rows are { _rid, orderByItems: [{ item }...], payload }, merges the
// ranges' pages by the order-by items, and when two ranges tie it drains the left one first. To resume (a new
// iterator from a continuation, or after a split) it sends filters and a resume value, then skips, in the range it
// stopped in, the rows whose items equal the resume value and whose document id comes before the continuation's
// rid. That only works when every range returns ties in one order the SDK can compare: the document part of the
// rid (the 8 bytes after the collection's, read as the SDK reads them: a little-endian unsigned 64-bit number),
// ascending, and descending when the first ORDER BY item is descending (the SDK's rule when the answer carries no
// query execution info, as here). The server's engine breaks ties by comparing rid texts, which is another order,
// so rows were skipped or repeated page by page (issue 35). Here the rows are put in the SDK's order and paged by
// position, not by finding the last row again.
import { decodeResourceId } from "../resource-ids.mjs";

const RANK = { undefined: 0, null: 1, boolean: 2, number: 3, string: 4, array: 5, object: 6 };

function typeOf(value) {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** Cosmos DB's order of two order-by values: by type (undefined < null < booleans < numbers < strings < arrays < objects), then by value. */
export function compareValues(a, b) {
  const ra = RANK[typeOf(a)];
  const rb = RANK[typeOf(b)];
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra <= RANK.null || ra >= RANK.array || a === b) return 0;
  return a < b ? -1 : 1;
}

/** The document part of a rid as the SDK compares it (ResourceId.Document), or 0n for a rid without one. */
export function documentOrder(rid) {
  const bytes = typeof rid === "string" ? decodeResourceId(rid) : Buffer.alloc(0);
  return bytes.length >= 16 ? bytes.readBigUInt64LE(8) : 0n;
}

/** Whether `rows` are the rewritten ORDER BY query's rows ({ _rid, orderByItems }), which this module orders. */
export const areOrderByRows = (rows) =>
  rows.length > 0 && rows.every((row) => row !== null && typeof row === "object" && Array.isArray(row.orderByItems) && typeof row._rid === "string");

/** A comparator of two rows' positions: order-by items with their directions, then the document order of the rid. */
export function rowComparator(descending) {
  const ridSign = descending[0] ? -1 : 1;
  return (a, b) => {
    for (let i = 0; i < descending.length; i += 1) {
      const c = compareValues(a.orderByItems[i]?.item, b.orderByItems[i]?.item);
      if (c !== 0) return descending[i] ? -c : c;
    }
    const da = documentOrder(a._rid);
    const db = documentOrder(b._rid);
    return da === db ? 0 : (da < db ? -1 : 1) * ridSign;
  };
}

/** The rows in the SDK's order (a stable sort: rows of one document, from a JOIN, keep their order). */
export const orderRows = (rows, descending) => rows.slice().sort(rowComparator(descending));

/**
 * Where a page ended, for the next page: the last row's items and rid, and how many rows at that same position
 * (one document's rows from a JOIN) the pages so far returned.
 */
export function positionOf(page, compare, previous) {
  const last = page[page.length - 1];
  let same = 0;
  let i = page.length - 1;
  for (; i >= 0 && compare(page[i], last) === 0; i -= 1) same += 1;
  // The whole page at one position that the previous page ended at too: add what that page had returned.
  if (i < 0 && previous && compare(last, markOf(previous)) === 0) same += previous.same ?? 0;
  return {
    items: last.orderByItems.map((o) => (o && "item" in o ? o.item : null)),
    defined: last.orderByItems.map((o) => Boolean(o) && "item" in o),
    rid: last._rid,
    same,
  };
}

const markOf = (position) => ({
  _rid: position.rid,
  orderByItems: position.items.map((item, i) => (position.defined?.[i] === false ? {} : { item })),
});

/** The rows after `position` (a page's end) in the order of `compare`. */
export function rowsAfter(rows, position, compare) {
  const mark = markOf(position);
  let sameToSkip = position.same ?? 0;
  return rows.filter((row) => {
    const c = compare(row, mark);
    if (c !== 0) return c > 0;
    sameToSkip -= 1;
    return sameToSkip < 0;
  });
}
