// Conditional patch (`PatchItemRequestOptions.FilterPredicate`, sent as `condition: "from c where ..."`).
// The server lower-cases the whole condition before evaluating it, so property names and string literals
// with capitals never match, and it evaluates it over every document with that id in any partition. Here
// the condition is evaluated, case intact, against the one document being patched; the patch itself is
// then applied by the server's own patch operation (without the condition). User properties whose names
// start with "_" can be patched, as in Cosmos DB (see patchWithUnderscoreProperties).
import { getPartitionKeyHeader, parsePartitionKey, patchOperation, readJson } from "./internals.mjs";
import { header, send } from "./respond.mjs";
import { snapshotDocuments } from "./documents-snapshot.mjs";
import { MAX_ITEM_BYTES, tooLarge } from "./limits.mjs";
import { patchRefusal } from "./patch-checks.mjs";

const CONDITION = /^\s*from\s+([A-Za-z_][A-Za-z0-9_]*)\s+where\s+([\s\S]+)$/i;

// Cosmos DB refuses to patch only its system-generated properties; the server refuses every path that starts
// with "/_", which includes user properties such as the "_ei" metadata of client-side encryption. Such user
// properties are renamed to an alias for the duration of the server's (synchronous) patch and renamed back.
const SYSTEM_PROPERTIES = new Set(["_rid", "_self", "_etag", "_ts", "_attachments", "_lsn"]);
const ALIAS_PREFIX = "compat:underscore:";

function userUnderscoreName(path) {
  if (typeof path !== "string" || !path.startsWith("/_")) {
    return undefined;
  }
  const name = path.slice(1).split("/")[0];
  return SYSTEM_PROPERTIES.has(name) ? undefined : name;
}

function aliasPath(path) {
  const name = userUnderscoreName(path);
  return name === undefined ? path : `/${ALIAS_PREFIX}${path.slice(1)}`;
}

function rename(target, from, to) {
  if (target && Object.prototype.hasOwnProperty.call(target, from)) {
    target[to] = target[from];
    delete target[from];
  }
}

function patchWithUnderscoreProperties(collection, doc, docId, partitionKey, ifMatch, operations) {
  const names = new Set();
  for (const operation of operations) {
    for (const path of [operation.path, operation.from]) {
      const name = userUnderscoreName(path);
      if (name !== undefined) {
        names.add(name);
      }
    }
  }
  if (names.size === 0) {
    return patchOperation(collection, { id: docId, partitionKey, ifMatch, operations });
  }
  const aliased = operations.map((operation) => ({
    ...operation,
    path: aliasPath(operation.path),
    ...(operation.from === undefined ? {} : { from: aliasPath(operation.from) }),
  }));
  for (const name of names) {
    rename(doc, name, ALIAS_PREFIX + name);
  }
  try {
    return patchOperation(collection, { id: docId, partitionKey, ifMatch, operations: aliased });
  } finally {
    // The stored document is the old one (failure) or the new one (success, also the response body).
    const stored = collection.document(docId, parsePartitionKey(partitionKey, docId)).read();
    for (const name of names) {
      rename(doc, ALIAS_PREFIX + name, name);
      rename(stored, ALIAS_PREFIX + name, name);
    }
  }
}

const failure = (statusCode, code, message) => ({ statusCode, body: { code, message } });
const PRECONDITION_FAILED = failure(
  412, "PreconditionFailed", "Operation cannot be performed because one of the specified precondition is not met.");

/**
 * Applies one patch request to one document, as the patch endpoint and batch patch operations do.
 * @param {object} request the parsed body: an array of operations or { operations, condition }
 * @param {string} partitionKey the partition key as the header carries it (JSON)
 * @param {string} [ifMatch]
 * @returns {{ statusCode: number, body: object }}
 */
export function applyPatch(collection, docId, partitionKey, request, ifMatch) {
  const operations = Array.isArray(request) ? request : request?.operations;
  if (!Array.isArray(operations)) {
    return failure(400, "BadRequest", "Invalid patch request: check syntax of patch specification.");
  }
  if (!collection.read()) {
    return failure(404, "NotFound", "Entity with the specified id does not exist in the system.");
  }
  let doc;
  try {
    doc = collection.document(docId, parsePartitionKey(partitionKey, docId)).read();
  } catch {
    return failure(400, "BadRequest", "invalid x-ms-documentdb-partitionkey header");
  }
  if (!doc) {
    return failure(404, "NotFound", "Entity with the specified id does not exist in the system.");
  }
  if (ifMatch && ifMatch !== doc._etag) {
    return PRECONDITION_FAILED;
  }

  const condition = Array.isArray(request) ? undefined : request.condition;
  if (condition) {
    const match = CONDITION.exec(condition);
    if (!match) {
      return failure(400, "BadRequest", `patch condition must read "FROM <alias> WHERE <predicate>": ${condition}`);
    }
    const [, alias, predicate] = match;
    const { documents } = collection;
    let satisfied;
    try {
      const query = documents._getQuery(`SELECT VALUE 1 FROM ${alias} WHERE ${predicate}`);
      satisfied = query.exec([doc], { udf: documents._userDefinedFunctions() }).result.length > 0;
    } catch (err) {
      return failure(400, "BadRequest", `invalid patch condition: ${err.message}`);
    }
    if (!satisfied) {
      return PRECONDITION_FAILED;
    }
  }

  // A write under a parent that does not exist, or an increment of null, is refused as Cosmos DB refuses it (the
  // server would write into the grandparent, or set the value); nothing is changed.
  const refusal = patchRefusal(doc, operations);
  if (refusal !== undefined) {
    return failure(400, "BadRequest", refusal);
  }

  // A patched item is held to the item size limit too (413, nothing changed). Its size is at most the document's
  // plus the operations' (set, add and replace add values; remove, increment and move do not grow it), so only
  // a patch that could exceed the limit pays for a snapshot to undo it.
  const jsonBytes = (value) => Buffer.byteLength(JSON.stringify(value), "utf8");
  const restore = jsonBytes(doc) + jsonBytes(operations) > MAX_ITEM_BYTES ? snapshotDocuments(collection.documents) : undefined;
  const result = patchWithUnderscoreProperties(collection, doc, docId, partitionKey, ifMatch, operations);
  if (restore && result.statusCode < 300 && jsonBytes(result.body) > MAX_ITEM_BYTES) {
    restore();
    return tooLarge(jsonBytes(result.body));
  }
  return result;
}

export async function patch(req, res, collection, docId) {
  const request = await readJson(req);
  const result = applyPatch(collection, docId, getPartitionKeyHeader(req), request, header(req, "if-match"));
  // EnableContentResponseOnWrite = false (`Prefer: return=minimal`): a success carries no body, only the etag.
  if (result.statusCode < 300 && /return=minimal/i.test(header(req, "prefer") ?? "")) {
    return send(res, result.statusCode, undefined, { etag: result.body._etag });
  }
  return send(res, result.statusCode, result.body);
}
