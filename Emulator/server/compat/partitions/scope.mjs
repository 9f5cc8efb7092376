// What part of a container a request about its documents addresses, as Cosmos DB's gateway reads it:
// - `x-ms-documentdb-partitionkeyrangeid` (`<id>` or `<collection rid>,<id>`): one physical partition; the
//   SDK sends it on queries, read feeds and change feeds after resolving ranges from `pkranges`;
// - `x-ms-start-epk` / `x-ms-end-epk`: a narrower slice of that range (a feed range finer than a range);
// - `x-ms-documentdb-partitionkey`: one logical partition (whose EPK picks its range).
// Nothing: the whole container. A range id that no longer exists (split) is answered 410/1002
// (PartitionKeyRangeGone), from which the SDK refreshes its routing map and retries on the children; a
// partition key whose EPK the named range does not hold is 400/1001 (PartitionKeyMismatch: the client's
// idea of the key's range is wrong, which for the SDK means a stale container definition).
import { partitionMatcher } from "../partition.mjs";
import { header } from "../respond.mjs";
import { MAX_EPK, MIN_EPK } from "./epk.mjs";
import { epkOf, epkOfDocument, layoutOf } from "./ranges.mjs";

export const PARTITION_KEY_RANGE_GONE = 1002;
export const PARTITION_KEY_MISMATCH = 1001;

export class ScopeError extends Error {
  constructor(statusCode, subStatus, code, message) {
    super(message);
    this.statusCode = statusCode;
    this.subStatus = subStatus;
    this.code = code;
  }
}

const badRequest = (message, subStatus) => new ScopeError(400, subStatus, "BadRequest", message);

function rangeIdHeader(req) {
  const raw = header(req, "x-ms-documentdb-partitionkeyrangeid");
  if (raw === undefined || raw === "") return undefined;
  return raw.slice(raw.lastIndexOf(",") + 1).trim();
}

function partitionKeyValue(raw) {
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest(`invalid x-ms-documentdb-partitionkey header: ${raw}`);
  }
  // Hierarchical keys are not modelled by the server (it uses the first path only), so neither are they here.
  return Array.isArray(parsed) ? parsed[0] : parsed;
}

/**
 * The request's scope: `ranges` (the live ranges it reaches), `rangeId` (when it names or implies exactly
 * one range), the EPK slice [minEpk, maxEpk), and `inPartition` (a predicate, when a partition key is named).
 * Throws ScopeError for a gone range, a malformed header or a key outside the named range.
 */
export function requestScope(req, documents) {
  const layout = layoutOf(documents);
  let minEpk = header(req, "x-ms-start-epk") || MIN_EPK;
  let maxEpk = header(req, "x-ms-end-epk") || MAX_EPK;
  let ranges = layout.overlapping(minEpk, maxEpk);
  let rangeId = rangeIdHeader(req);
  if (rangeId !== undefined) {
    const range = layout.byId(rangeId);
    if (!range) {
      throw new ScopeError(410, PARTITION_KEY_RANGE_GONE, "Gone", layout.gone.has(rangeId)
        ? `The partition key range ${rangeId} is gone: it split into ${layout.gone.get(rangeId).join(" and ")}.`
        : `The partition key range ${rangeId} does not exist.`);
    }
    ranges = [range];
    if (minEpk < range.minInclusive) minEpk = range.minInclusive;
    if (maxEpk > range.maxExclusive) maxEpk = range.maxExclusive;
  }

  const rawKey = header(req, "x-ms-documentdb-partitionkey");
  let inPartition;
  if (rawKey !== undefined && rawKey !== "") {
    let epk;
    try {
      epk = epkOf(documents._parent.read(), partitionKeyValue(rawKey));
    } catch (err) {
      throw err instanceof ScopeError ? err : badRequest(`invalid partition key ${rawKey}: ${err.message}`);
    }
    const range = layout.rangeOfEpk(epk);
    if (rangeId !== undefined && range.id !== rangeId) {
      throw badRequest(`The partition key ${rawKey} does not belong to partition key range ${rangeId}.`, PARTITION_KEY_MISMATCH);
    }
    ranges = [range];
    rangeId = range.id;
    inPartition = partitionMatcher(rawKey, documents);
  }
  if (rangeId === undefined && ranges.length === 1) rangeId = ranges[0].id;

  const contains = (doc) => {
    if (inPartition && !inPartition(doc)) return false;
    if (minEpk === MIN_EPK && maxEpk === MAX_EPK) return true;
    const epk = epkOfDocument(documents, doc);
    return minEpk <= epk && epk < maxEpk;
  };
  return {
    layout,
    ranges,
    rangeId,
    inPartition,
    contains,
    /** The stored documents in scope, in write order. */
    documents: () => [...documents._data.values()].map((item) => item.read()).filter(contains),
  };
}
