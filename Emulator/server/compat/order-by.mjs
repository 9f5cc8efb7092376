// ORDER BY on one property. The server's engine drops the documents whose sort property is undefined; Cosmos
// DB returns them, ordered before every defined value (undefined, null, booleans, numbers, strings, arrays,
// objects, ascending; the reverse descending), so a query with ORDER BY sees the same documents as without.
// The engine already orders mixed types that way; only its filter is undone here. Paging resumes from the
// sort value of the last document in its continuation (JSON), where undefined would read back as null: it is
// written as a marker object and read back as undefined.
import { queryContinuationToken, queryHelpers } from "./internals.mjs";

const UNDEFINED_MARKER = "$compat:undefined";

const toJson = (value) => (value === undefined ? { [UNDEFINED_MARKER]: true } : value);
const fromJson = (value) =>
  (value !== null && typeof value === "object" && !Array.isArray(value) && value[UNDEFINED_MARKER] === true ? undefined : value);

export function installOrderByUndefined() {
  const engineSort = queryHelpers.sort;
  queryHelpers.sort = (collection, getRid, compositeIndexes, ...orders) => {
    if (orders.length !== 1) return engineSort(collection, getRid, compositeIndexes, ...orders);
    // The same order twice sorts identically and skips the single-order filter; a single order needs no
    // composite index, so none is passed for the check that two orders would trigger.
    return engineSort(collection, getRid, null, orders[0], orders[0]);
  };

  const { encode, decode } = queryContinuationToken;
  queryContinuationToken.encode = (token) =>
    encode(Array.isArray(token.RTD) ? { ...token, RTD: token.RTD.map(toJson) } : token);
  queryContinuationToken.decode = (text) => {
    const token = decode(text);
    if (Array.isArray(token.RTD)) token.RTD = token.RTD.map(fromJson);
    return token;
  };
}
