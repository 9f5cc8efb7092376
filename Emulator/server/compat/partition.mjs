// Logical partitions: what a partition key value is, for a stored document and for the
// `x-ms-documentdb-partitionkey` header, and the key under which the server files a document.
//
// A container's partition key is one path (kind Hash) or two or three (kind MultiHash, hierarchical keys); the
// header carries the key as a JSON array of one value per path (`["a"]`, `["t","u","s"]`), `[{}]` for
// PartitionKey.None (documents without the property) and `[]` for the empty key of a container without a key of
// its own. A hierarchical key's prefix (fewer values than paths) names every logical partition under it; Cosmos
// DB serves it on queries and the change feed only (partitions/scope.mjs).
//
// The server as published files documents by the value at the first path only, as a plain string: two documents
// with the same id under the same first value but another second value were one document (a create was 409), and
// 1 and "1", or "" and PartitionKey.None, were one partition. installPartitionStorageKeys gives the server a
// canonical key of the whole value instead (JSON of the values), both where it files a document
// (`Documents._getPartition`) and where it reads the header (`parsePartitionKey`), so every lookup of the server's
// own operations (read, replace, upsert, delete, patch, unique keys) is by the full, typed key.
import { isNonPartitioned } from "./containers.mjs";
import { Documents, partitionKeyHeaderModule } from "./internals.mjs";

const NONE = "<none>"; // PartitionKey.None: documents that lack the partition key property

const isNoneValue = (value) => value === undefined
  || (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0);

// One comparable string per partition key value: JSON for real values, a marker for "absent".
const canonical = (value) => (isNoneValue(value) ? NONE : JSON.stringify(value));

/** True when the container's partition key is hierarchical (kind MultiHash). */
export const isHierarchical = (container) => container?.partitionKey?.kind === "MultiHash" && !isNonPartitioned(container);

/** The container's partition key paths as property steps (`/a/b` -> ["a", "b"]). */
function keySteps(container) {
  return (container?.partitionKey?.paths ?? []).map((path) => path.slice(1).split("/"));
}

function valueAt(steps, doc) {
  let node = doc;
  for (const step of steps) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[step];
  }
  return node;
}

/**
 * The values of a stored document's partition key, one per path. A container without a partition key of its own
 * (system key `/_partitionKey`): its `_partitionKey`, absent (the "none" partition) for documents written without it.
 */
export function documentComponents(container, doc) {
  if (isNonPartitioned(container)) return [doc._partitionKey];
  return keySteps(container).map((steps) => valueAt(steps, doc));
}

/**
 * A stored document's partition key value as Cosmos DB reads it: the value (kind Hash, or the system key), or
 * the array of its values (kind MultiHash).
 */
export function partitionValueOf(documents, doc) {
  const container = documents._parent.read();
  const components = documentComponents(container, doc);
  return isHierarchical(container) ? components : components[0];
}

/**
 * The values the partition key header names, one per path given. Throws on unparsable JSON or a value that is
 * not a JSON array (older clients send one JSON string: one value).
 */
export function headerComponents(raw) {
  const parsed = JSON.parse(raw);
  if (typeof parsed === "string") return [parsed];
  if (!Array.isArray(parsed)) throw new SyntaxError(`the partition key must be a JSON array, not ${raw}`);
  return parsed.length === 0 ? [undefined] : parsed;
}

// Cosmos DB's answer to a partition key that does not fit the container's definition (wrong number of values).
export const PARTITION_KEY_DEFINITION_MISMATCH =
  "Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.";

/**
 * How the header's values fit the container: "full" (one value per path), "prefix" (a hierarchical key with fewer
 * values), or undefined (more values than paths, or several for a one-path key: Cosmos DB refuses it, 400).
 */
export function keyShape(container, components) {
  const paths = isNonPartitioned(container) ? 1 : keySteps(container).length;
  if (components.length === paths) return "full";
  if (isHierarchical(container) && components.length >= 1 && components.length < paths) return "prefix";
  return undefined;
}

/**
 * A predicate over stored documents: in the logical partition that `raw` (the header's JSON, e.g. `["p0"]`)
 * names, or for a hierarchical key's prefix under it. Throws on unparsable JSON (the caller answers 400).
 */
export function partitionMatcher(raw, documents) {
  const wanted = headerComponents(raw).map(canonical);
  const container = documents._parent.read();
  return (doc) => {
    const components = documentComponents(container, doc);
    if (wanted.length > components.length) return false;
    return wanted.every((value, index) => value === canonical(components[index]));
  };
}

/**
 * The key the server files a document under, from its partition key values: JSON of the values (PartitionKey.None
 * as `{}`), or undefined when every value is absent, which makes the server use the document's id as it always did
 * for the "none" partition.
 */
export function storageKey(components) {
  if (components.every(isNoneValue)) return undefined;
  return JSON.stringify(components.map((value) => (isNoneValue(value) ? {} : value)));
}

export function installPartitionStorageKeys() {
  const serverGetPartition = Documents.prototype._getPartition;
  Documents.prototype._getPartition = function storageKeyOf(doc) {
    const container = this._parent.read();
    // Without a container (never in practice) or without a key of its own: the server's filing (by id) is kept.
    if (!container || isNonPartitioned(container)) return serverGetPartition.call(this, doc);
    return storageKey(documentComponents(container, doc));
  };
  const serverParse = partitionKeyHeaderModule.parsePartitionKey;
  // The server's handlers call it through the module object at every call, so replacing the export reaches them.
  partitionKeyHeaderModule.parsePartitionKey = function parseStorageKey(partitionKey, defaultValue) {
    let components;
    try {
      components = headerComponents(partitionKey);
    } catch {
      return serverParse(partitionKey, defaultValue); // throws the server's own message
    }
    return storageKey(components) ?? defaultValue;
  };
}
