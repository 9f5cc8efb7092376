// One batch operation against a container, with the server's own document operations and the patch layer's
// patch: the same rules as the single-document endpoints. Returns { statusCode, body? } and never throws for
// a bad operation (its result carries the error). Everything here is synchronous, so a batch runs without
// another request interleaving.
import {
  createOperation,
  deleteOperation,
  readOperation,
  replaceOperation,
  upsertOperation,
} from "../internals.mjs";
import { itemLimitError } from "../limits.mjs";
import { partitionMatcher, partitionValueOf } from "../partition.mjs";
import { applyPatch } from "../patch.mjs";

const error = (statusCode, code, message) => ({ statusCode, body: { code, message } });

function parseBody(operation) {
  if (!operation.resourceBody) return undefined;
  return JSON.parse(operation.resourceBody.toString("utf8"));
}

// A document written through a partition must belong to it, as Cosmos DB checks.
function inPartition(collection, partitionKey, doc) {
  return partitionMatcher(partitionKey, collection.documents)(doc);
}

function write(collection, operation, partitionKey, run) {
  const doc = parseBody(operation);
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) {
    return error(400, "BadRequest", `${operation.operationType} needs a JSON object as its body`);
  }
  if (!inPartition(collection, partitionKey, doc)) {
    return error(400, "BadRequest", "PartitionKey extracted from document doesn't match the one specified in the header");
  }
  const overLimit = itemLimitError(doc, operation.resourceBody.length, collection.read(), partitionValueOf(collection.documents, doc));
  if (overLimit) return overLimit;
  if (operation.operationType === "replace" && operation.id !== undefined && operation.id !== doc.id) {
    return error(400, "BadRequest", "The id of the replace operation does not match the id in its body");
  }
  return run({ partitionKey, resourceBody: doc, ifMatch: operation.ifMatch });
}

const PRECONDITION_FAILED = "Operation cannot be performed because one of the specified precondition is not met.";

// A read's conditions, as on a point read: If-Match with another etag is 412 (which fails a transactional batch);
// If-None-Match with the current etag (or `*`) is 304 with that etag and no body.
export function conditionalRead(result, { ifMatch, ifNoneMatch }) {
  if (result.statusCode !== 200) return result;
  const etag = result.body._etag;
  if (ifMatch && ifMatch !== "*" && ifMatch !== etag) return error(412, "PreconditionFailed", PRECONDITION_FAILED);
  if (ifNoneMatch && (ifNoneMatch === "*" || ifNoneMatch === etag)) return { statusCode: 304, body: { _etag: etag } };
  return result;
}

function run(collection, operation, partitionKey) {
  const { id, ifMatch } = operation;
  switch (operation.operationType) {
    case "create": return write(collection, operation, partitionKey, (input) => createOperation(collection, input));
    case "replace": return write(collection, operation, partitionKey, (input) => replaceOperation(collection, input));
    case "upsert": return write(collection, operation, partitionKey, (input) => upsertOperation(collection, input));
    case "delete": return deleteOperation(collection, { partitionKey, id, ifMatch });
    case "patch": return applyPatch(collection, id, partitionKey, parseBody(operation), ifMatch);
    case "read": return conditionalRead(readOperation(collection, { partitionKey, id }), operation);
    default: return error(400, "BadRequest", `operation type ${operation.operationType} is not supported in a batch`);
  }
}

// As the partition key header carries it: a JSON array (or, from older clients, a JSON string).
function isPartitionKeyJson(partitionKey) {
  if (typeof partitionKey !== "string") return false;
  try {
    const parsed = JSON.parse(partitionKey);
    return Array.isArray(parsed) || typeof parsed === "string";
  } catch {
    return false;
  }
}

/**
 * @param {import("./codec.mjs").BatchOperation} operation
 * @param {string} partitionKey the operation's own partition key (bulk) or the batch's (transactional batch)
 */
export function executeOperation(collection, operation, partitionKey) {
  if (!isPartitionKeyJson(partitionKey)) {
    return error(400, "BadRequest", `invalid partition key: ${partitionKey}`);
  }
  if (operation.operationType !== "create" && operation.operationType !== "upsert" && !operation.id) {
    return error(400, "BadRequest", `${operation.operationType} needs an id`);
  }
  try {
    return run(collection, operation, partitionKey);
  } catch (err) {
    // An unparsable JSON body is the operation's fault, answered as the endpoints would.
    if (err instanceof SyntaxError) {
      return error(400, "BadRequest", `invalid JSON body: ${err.message}`);
    }
    throw err;
  }
}
