// Cosmos DB's documented per-item limits, where a client meets them on a write (point write, batch, bulk):
// - an item (its JSON as written) is at most 2 MB (2,097,152 bytes of UTF-8): larger is 413
//   RequestEntityTooLarge, and nothing is stored;
// - an id is a string of at most 255 characters without '/', '\', '?' or '#': otherwise 400;
// - a partition key value is at most 2,048 bytes with hash version 2 (the "large partition key"), 101 bytes
//   with version 1: otherwise 400.
// The request-level limits (a batch of more than 100 operations or over the SDK's batch body size) are in
// batch/handler.mjs; the container definition's in containers.mjs.
import { resourceIdError } from "./containers.mjs";
import { usesHashV2 } from "./partitions/epk.mjs";

export const MAX_ITEM_BYTES = 2 * 1024 * 1024;
export const MAX_PARTITION_KEY_BYTES_V2 = 2048;
export const MAX_PARTITION_KEY_BYTES_V1 = 101;

/** A refusal as the handlers answer it: { statusCode, body: { code, message } }. */
const refusal = (statusCode, code, message) => ({ statusCode, body: { code, message } });

export const tooLarge = (bytes) =>
  refusal(413, "RequestEntityTooLarge", `Request size is too large: the item is ${bytes} bytes; at most ${MAX_ITEM_BYTES} are allowed.`);

/**
 * The partition key value's size as Cosmos DB counts it: the UTF-8 bytes of a string, else of its JSON; a
 * hierarchical key's values together.
 */
function partitionKeyBytes(value) {
  if (Array.isArray(value)) return value.reduce((sum, component) => sum + partitionKeyBytes(component), 0);
  if (value === undefined || value === null) return 0;
  return Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value), "utf8");
}

/**
 * Why Cosmos DB would refuse to store this item, or undefined.
 * @param {object} doc the parsed item
 * @param {number} bytes the size of the item as written (its JSON, UTF-8)
 * @param {object} container the container definition (its partition key version decides the key's limit)
 * @param {unknown} partitionValue the item's partition key value
 */
export function itemLimitError(doc, bytes, container, partitionValue) {
  if (bytes > MAX_ITEM_BYTES) return tooLarge(bytes);
  const idError = resourceIdError(doc.id, "id");
  if (idError) return refusal(400, "BadRequest", idError);
  const limit = usesHashV2(container) ? MAX_PARTITION_KEY_BYTES_V2 : MAX_PARTITION_KEY_BYTES_V1;
  const keyBytes = partitionKeyBytes(partitionValue);
  if (keyBytes > limit) {
    return refusal(400, "BadRequest", `The partition key value is ${keyBytes} bytes; at most ${limit} are allowed for this container's partition key version.`);
  }
  return undefined;
}
