// Point reads. The server's handler dereferences the stored document before checking that it exists
// unless the (query-only) cross-partition header is present, which the SDK never sends on a point read,
// so a missing id or a wrong partition key becomes a 500. The server's own read operation, which looks the
// id up inside the named partition, gives the right 200 / 404.
import { getPartitionKeyHeader, readOperation } from "./internals.mjs";
import { badRequest, header, notFound, send } from "./respond.mjs";

export function pointRead(req, res, collection, docId) {
  if (!collection.read()) {
    return notFound(res);
  }
  const partitionKey = getPartitionKeyHeader(req);
  if (partitionKey === undefined) {
    return badRequest(res, "missing x-ms-documentdb-partitionkey header");
  }
  let result;
  try {
    result = readOperation(collection, { partitionKey, id: docId });
  } catch {
    return badRequest(res, "invalid x-ms-documentdb-partitionkey header");
  }
  if (result.statusCode === 404) {
    return notFound(res);
  }
  // Conditional read (If-None-Match with the current etag): nothing changed.
  const ifNoneMatch = header(req, "if-none-match");
  if (ifNoneMatch && ifNoneMatch === result.body._etag) {
    return send(res, 304, undefined, { etag: result.body._etag });
  }
  return send(res, result.statusCode, result.body);
}
