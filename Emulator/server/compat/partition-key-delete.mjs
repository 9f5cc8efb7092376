// Delete by partition key (`Container.DeleteAllItemsByPartitionKeyStreamAsync`): the SDK's
// `POST /dbs/{db}/colls/{coll}/operations/partitionkeydelete` with the key in `x-ms-documentdb-partitionkey`. The
// server as published does not know the route. Cosmos DB deletes the logical partition's documents in the
// background but hides them at once ("the documents to be deleted won't appear in the results of queries or read
// operations"), so deleting them here before answering 200 is what a client can observe.
//
// Cosmos DB deletes one logical partition: the full key. A prefix of a hierarchical key is not a logical
// partition, and the service does not delete by prefix (Cosmos DB's hierarchical-key feedback group, issue 3: "We
// currently do not have plans for supporting this feature"), so it is refused (400) and nothing is deleted.
import { collectionOf } from "./account.mjs";
import { PARTITION_KEY_DEFINITION_MISMATCH } from "./partition.mjs";
import { requestScope, ScopeError } from "./partitions/scope.mjs";
import { badRequest, header, notFound, send } from "./respond.mjs";
import { addDocumentHeaders } from "./session.mjs";

const PARTITION_KEY_DELETE_PATH = /^\/dbs\/([^/]+)\/colls\/([^/]+)\/operations\/partitionkeydelete$/;

/** The container the request names ({ dbId, collId }), or undefined when it is not a delete by partition key. */
export function isPartitionKeyDelete(req, normalised) {
  const match = req.method === "POST" && PARTITION_KEY_DELETE_PATH.exec(normalised);
  return match ? { dbId: decodeURIComponent(match[1]), collId: decodeURIComponent(match[2]) } : undefined;
}

export function partitionKeyDelete(req, res, { dbId, collId }) {
  req.resume(); // no body is expected; drain whatever came so the connection can be reused
  const collection = collectionOf(dbId, collId);
  if (!collection.read()) return notFound(res);
  const rawKey = header(req, "x-ms-documentdb-partitionkey");
  if (rawKey === undefined || rawKey === "") return badRequest(res, "The partition key header (x-ms-documentdb-partitionkey) is missing.");
  let scope;
  try {
    scope = requestScope(req, collection.documents);
  } catch (err) {
    if (!(err instanceof ScopeError)) throw err;
    const subStatus = err.subStatus === undefined ? {} : { "x-ms-substatus": String(err.subStatus) };
    return send(res, err.statusCode, { code: err.code, message: err.message }, subStatus);
  }
  if (scope.prefix) {
    return badRequest(res, `${PARTITION_KEY_DEFINITION_MISMATCH} Delete by partition key deletes one logical partition: give every value of the hierarchical partition key (${rawKey} is a prefix).`);
  }
  addDocumentHeaders(res, collection, `dbs/${dbId}/colls/${collId}`, scope);
  const { documents } = collection;
  for (const doc of scope.documents()) documents.delete(doc.id, documents._getPartition(doc));
  return send(res, 200, undefined);
}
