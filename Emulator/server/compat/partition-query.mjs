// Queries and reads of the documents scoped to part of a container: one logical partition
// (`QueryRequestOptions.PartitionKey`, the `x-ms-documentdb-partitionkey` header) or one partition key range
// (`x-ms-documentdb-partitionkeyrangeid`, narrowed by `x-ms-start-epk`/`x-ms-end-epk`), which is how the SDK
// runs a cross-partition query: once per range, merging the pages itself (query-plan.mjs). The server as
// published refuses the first ("missing partition keys" unless the SQL repeats the key predicate) and
// ignores the second, answering every range with every document. Here the query is evaluated by the server's
// own query engine over the documents in scope only (partitions/scope.mjs), with the server's paging.
import { badRequest, header, isTrue, send } from "./respond.mjs";
import { readItems, readJson } from "./internals.mjs";
import { runPartialAggregate } from "./query/plan.mjs";
import { parseClauses } from "./query/clauses.mjs";
import { areOrderByRows, orderRows, positionOf, rowComparator, rowsAfter } from "./query/order-by-rows.mjs";
import { applyResumeFilter } from "./query/resume-filter.mjs";

// The directions of an ORDER BY query's items (true: descending), empty when it has none or cannot be split.
function orderByDirections(sql) {
  try {
    return parseClauses(sql).orderBy.map((o) => o.descending);
  } catch {
    return [];
  }
}

const SCOPE_HEADERS = ["x-ms-documentdb-partitionkey", "x-ms-documentdb-partitionkeyrangeid", "x-ms-start-epk", "x-ms-end-epk"];
const isScoped = (req) => SCOPE_HEADERS.some((name) => Boolean(header(req, name)));

export function isPartitionScopedQuery(req) {
  if (req.method !== "POST") return false;
  const isQuery = isTrue(req, "x-ms-documentdb-isquery") || /^application\/query\+json/i.test(header(req, "content-type") ?? "");
  return isQuery && isScoped(req);
}

/** A read of the documents (a query with no text) scoped to a partition or range, which the server ignores. */
export const isPartitionScopedReadFeed = (req) => req.method === "GET" && !header(req, "a-im") && isScoped(req);

export const partitionScopedReadFeed = (req, res, collection) =>
  runInScope(req, res, collection, { query: "SELECT * FROM c" });

export async function partitionScopedQuery(req, res, collection) {
  const request = await readJson(req);
  if (!request.query) {
    return badRequest(res, "missing query");
  }
  return runInScope(req, res, collection, request);
}

async function runInScope(req, res, collection, request) {
  const { documents } = collection;
  let body;
  try {
    // readItems pages the result (x-ms-continuation, x-ms-item-count) and turns syntax errors into 400 and
    // a missing container into 404 on `res.statusCode`, exactly as for the server's own queries.
    body = await readItems(req, res, "Documents", async ({ continuation, maxItemCount }) => {
      const container = collection.read();
      if (!container || !req.partitionScope) return null;
      // The same engine, UDFs and composite indexes as the server's own `Items.query`, on fewer documents.
      const inScope = req.partitionScope.documents();
      const options = {
        parameters: request.parameters,
        udf: documents._userDefinedFunctions(),
        compositeIndexes: container.indexingPolicy?.compositeIndexes ?? [],
      };
      // A range's part of a cross-partition aggregate (query/plan.mjs): one result, the partial value.
      const partial = runPartialAggregate(request.query, (sql) => documents._getQuery(sql).exec(inScope, options).result);
      if (partial) return { result: partial, continuation: null };
      const descending = orderByDirections(request.query);
      if (descending.length > 0) {
        // The SDK's rewritten ORDER BY query: its rows in the SDK's order (query/order-by-rows.mjs), the resume
        // filter applied (query/resume-filter.mjs), then paged by position.
        const all = documents._getQuery(request.query).exec(inScope, options).result;
        if (areOrderByRows(all)) {
          const compare = rowComparator(descending);
          let rows = orderRows(all, descending);
          if (request.resumeFilter) rows = applyResumeFilter(rows, request.query, request.resumeFilter);
          if (continuation?.position) rows = rowsAfter(rows, continuation.position, compare);
          const page = maxItemCount > 0 ? rows.slice(0, maxItemCount) : rows;
          return { result: page, continuation: page.length < rows.length ? { position: positionOf(page, compare, continuation?.position) } : null };
        }
      }
      return documents._getQuery(request.query).exec(inScope, { ...options, maxItemCount, continuation });
    });
  } catch (err) {
    // Evaluation errors are the query's fault, as in the server's `Items.query`.
    return badRequest(res, err.message);
  }
  return send(res, res.statusCode, body);
}
