// What part of a container a request about its documents addresses, as Cosmos DB's gateway reads it:
// - `x-ms-documentdb-partitionkeyrangeid` (`<id>` or `<collection rid>,<id>`): one physical partition; the
//   SDK sends it on queries, read feeds and change feeds after resolving ranges from `pkranges`;
// - `x-ms-start-epk` / `x-ms-end-epk`: a narrower slice of that range (a feed range finer than a range);
// - `x-ms-documentdb-partitionkey`: one logical partition (whose EPK picks its range).
// Nothing: the whole container. A range id that no longer exists (split) is answered 410/1002
// (PartitionKeyRangeGone), from which the SDK refreshes its routing map and retries on the children; a
// partition key whose EPK the named range does not hold is 400/1001 (PartitionKeyMismatch: the client's
// idea of the key's range is wrong, which for the SDK means a stale container definition).
import { headerComponents, isHierarchical, keyShape, PARTITION_KEY_DEFINITION_MISMATCH, partitionMatcher } from "../partition.mjs";
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

// The header's values, checked against the container's definition: one value per path, or for a hierarchical key a
// prefix (fewer values). Anything else is 400 with Cosmos DB's message.
function partitionKeyComponents(raw, container) {
  let components;
  try {
    components = headerComponents(raw);
  } catch {
    throw badRequest(`invalid x-ms-documentdb-partitionkey header: ${raw}`);
  }
  const shape = keyShape(container, components);
  if (!shape) throw badRequest(`${PARTITION_KEY_DEFINITION_MISMATCH} (x-ms-documentdb-partitionkey: ${raw})`);
  return { components, prefix: shape === "prefix" };
}

/**
 * The request's scope: `ranges` (the live ranges it reaches), `rangeId` (when it names or implies exactly
 * one range), the EPK slice [minEpk, maxEpk), `inPartition` (a predicate, when a partition key is named) and
 * `prefix` (true when that key is a prefix of a hierarchical key: the logical partitions under it, which may span
 * ranges; only queries and feeds may address one, install.mjs).
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
  let prefix = false;
  if (rawKey !== undefined && rawKey !== "") {
    const container = documents._parent.read();
    const key = partitionKeyComponents(rawKey, container);
    let epk;
    try {
      epk = epkOf(container, isHierarchical(container) ? key.components : key.components[0]);
    } catch (err) {
      throw err instanceof ScopeError ? err : badRequest(`invalid partition key ${rawKey}: ${err.message}`);
    }
    if (key.prefix) {
      // Every logical partition under the prefix: EPKs [prefix EPK, prefix EPK + "FF"), as the SDK routes it.
      prefix = true;
      if (minEpk < epk) minEpk = epk;
      if (maxEpk > `${epk}${MAX_EPK}`) maxEpk = `${epk}${MAX_EPK}`;
      ranges = layout.overlapping(minEpk, maxEpk);
      if (rangeId !== undefined && !ranges.some((range) => range.id === rangeId)) {
        throw badRequest(`The partition key ${rawKey} does not belong to partition key range ${rangeId}.`, PARTITION_KEY_MISMATCH);
      }
      if (rangeId !== undefined) ranges = ranges.filter((range) => range.id === rangeId);
    } else {
      const range = layout.rangeOfEpk(epk);
      if (rangeId !== undefined && range.id !== rangeId) {
        throw badRequest(`The partition key ${rawKey} does not belong to partition key range ${rangeId}.`, PARTITION_KEY_MISMATCH);
      }
      ranges = [range];
      rangeId = range.id;
    }
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
    prefix,
    contains,
    /** The stored documents in scope, in write order. */
    documents: () => [...documents._data.values()].map((item) => item.read()).filter(contains),
  };
}
