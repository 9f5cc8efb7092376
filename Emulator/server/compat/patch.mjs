// Conditional patch (`PatchItemRequestOptions.FilterPredicate`, sent as `condition: "from c where ..."`).
// The server lower-cases the whole condition before evaluating it, so property names and string literals
// with capitals never match, and it evaluates it over every document with that id in any partition. Here
// the condition is evaluated, case intact, against the one document being patched; the patch itself is
// then applied by the server's own patch operation (without the condition).
import { getPartitionKeyHeader, parsePartitionKey, patchOperation, readJson } from "./internals.mjs";
import { badRequest, header, notFound, preconditionFailed, send } from "./respond.mjs";

const CONDITION = /^\s*from\s+([A-Za-z_][A-Za-z0-9_]*)\s+where\s+([\s\S]+)$/i;

export async function patch(req, res, collection, docId) {
  const request = await readJson(req);
  const operations = Array.isArray(request) ? request : request.operations;
  if (!Array.isArray(operations)) {
    return badRequest(res, "Invalid patch request: check syntax of patch specification.");
  }
  if (!collection.read()) {
    return notFound(res);
  }
  const partitionKey = getPartitionKeyHeader(req);
  let doc;
  try {
    doc = collection.document(docId, parsePartitionKey(partitionKey, docId)).read();
  } catch {
    return badRequest(res, "invalid x-ms-documentdb-partitionkey header");
  }
  if (!doc) {
    return notFound(res);
  }
  const ifMatch = header(req, "if-match");
  if (ifMatch && ifMatch !== doc._etag) {
    return preconditionFailed(res);
  }

  const condition = Array.isArray(request) ? undefined : request.condition;
  if (condition) {
    const match = CONDITION.exec(condition);
    if (!match) {
      return badRequest(res, `patch condition must read "FROM <alias> WHERE <predicate>": ${condition}`);
    }
    const [, alias, predicate] = match;
    const { documents } = collection;
    let satisfied;
    try {
      const query = documents._getQuery(`SELECT VALUE 1 FROM ${alias} WHERE ${predicate}`);
      satisfied = query.exec([doc], { udf: documents._userDefinedFunctions() }).result.length > 0;
    } catch (err) {
      return badRequest(res, `invalid patch condition: ${err.message}`);
    }
    if (!satisfied) {
      return preconditionFailed(res);
    }
  }

  const result = patchOperation(collection, { id: docId, partitionKey, ifMatch, operations });
  return send(res, result.statusCode, result.body);
}
