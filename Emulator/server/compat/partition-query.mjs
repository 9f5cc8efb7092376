// Partition-scoped queries (`QueryRequestOptions.PartitionKey`). The SDK sends the partition in the
// `x-ms-documentdb-partitionkey` header and leaves it out of the SQL; the server then refuses the query
// ("missing partition keys") unless the SQL repeats the key predicate. Here the query is evaluated by the
// server's own query engine over the documents of that logical partition only, with the server's paging.
import { partitionFilter } from "./partition.mjs";
import { badRequest, header, isTrue, send } from "./respond.mjs";
import { readItems, readJson } from "./internals.mjs";

export function isPartitionScopedQuery(req) {
  if (req.method !== "POST") return false;
  const isQuery = isTrue(req, "x-ms-documentdb-isquery") || header(req, "content-type") === "application/query+json";
  return isQuery && Boolean(header(req, "x-ms-documentdb-partitionkey"));
}

/** A read of the documents (a query with no text) scoped to one partition key, which the server ignores. */
export const isPartitionScopedReadFeed = (req) =>
  req.method === "GET" && !header(req, "a-im") && Boolean(header(req, "x-ms-documentdb-partitionkey"));

export const partitionScopedReadFeed = (req, res, collection) =>
  runInPartition(req, res, collection, { query: "SELECT * FROM c" });

export async function partitionScopedQuery(req, res, collection) {
  const request = await readJson(req);
  if (!request.query) {
    return badRequest(res, "missing query");
  }
  return runInPartition(req, res, collection, request);
}

async function runInPartition(req, res, collection, request) {
  const { documents } = collection;
  let inPartition;
  try {
    inPartition = partitionFilter(req, documents);
  } catch {
    return badRequest(res, "invalid x-ms-documentdb-partitionkey header");
  }

  let body;
  try {
    // readItems pages the result (x-ms-continuation, x-ms-item-count) and turns syntax errors into 400 and
    // a missing container into 404 on `res.statusCode`, exactly as for the server's own queries.
    body = await readItems(req, res, "Documents", async ({ continuation, maxItemCount }) => {
      const container = collection.read();
      if (!container) return null;
      const inScope = [...documents._data.values()].map((item) => item.read()).filter(inPartition);
      // The same engine, UDFs and composite indexes as the server's own `Items.query`, on fewer documents.
      return documents._getQuery(request.query).exec(inScope, {
        parameters: request.parameters,
        udf: documents._userDefinedFunctions(),
        maxItemCount,
        continuation,
        compositeIndexes: container.indexingPolicy?.compositeIndexes ?? [],
      });
    });
  } catch (err) {
    // Evaluation errors are the query's fault, as in the server's `Items.query`.
    return badRequest(res, err.message);
  }
  return send(res, res.statusCode, body);
}
