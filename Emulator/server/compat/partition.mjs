// Logical-partition membership for requests scoped by the `x-ms-documentdb-partitionkey` header. The server
// only understands that header on point operations; queries and the change feed need it as a filter.

import { isNonPartitioned } from "./containers.mjs";

const NONE = "<none>"; // PartitionKey.None: documents that lack the partition key property

// One comparable string per partition key value: JSON for real values, a marker for "absent". The SDK
// sends PartitionKey.None as `[{}]`.
function canonical(value) {
  if (value === undefined) {
    return NONE;
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) {
    return NONE;
  }
  return JSON.stringify(value);
}

/**
 * A stored document's partition key value as Cosmos DB reads it. The server files the documents of a container
 * without a partition key of its own (system key `/_partitionKey`) under their id; Cosmos DB reads the
 * `_partitionKey` property, absent (the "none" partition, PartitionKey.None = `[]`) for documents written
 * without it.
 */
export function partitionValueOf(documents, doc) {
  return isNonPartitioned(documents._parent.read()) ? doc._partitionKey : documents._getPartition(doc);
}

/**
 * A predicate over stored documents: in the partition that `raw` (the partition key header's JSON, e.g.
 * `["p0"]`) names. Throws on unparsable JSON (the caller answers 400).
 */
export function partitionMatcher(raw, documents) {
  const parsed = JSON.parse(raw);
  // Hierarchical keys are not modelled by the server (it uses the first path only), so neither are they here.
  const wanted = canonical(Array.isArray(parsed) ? parsed[0] : parsed);
  return (doc) => canonical(partitionValueOf(documents, doc)) === wanted;
}
