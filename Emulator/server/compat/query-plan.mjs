// Query plans. Without the native query engine (Windows only), the .NET SDK asks the gateway for a plan
// before every cross-partition query (and before some partition-scoped ones): the query is POSTed with
// `x-ms-cosmos-is-query-plan-request: True` and a `PartitionedQueryExecutionInfo` is expected back. The
// server runs the query instead and the SDK fails to parse the documents as a plan. A container with one
// partition key range gets a pass-through plan (the server evaluates ORDER BY, TOP and aggregates itself);
// one with several gets the gateway's plan (query/plan.mjs), so the SDK merges the ranges' pages.
import { collectionOf } from "./account.mjs";
import { readJson } from "./internals.mjs";
import { layoutOf } from "./partitions/ranges.mjs";
import { QueryShapeError } from "./query/clauses.mjs";
import { passThroughPlan, queryPlanFor } from "./query/plan.mjs";
import { badRequest, isTrue, notFound, send } from "./respond.mjs";

export const isQueryPlanRequest = (req) => req.method === "POST" && isTrue(req, "x-ms-cosmos-is-query-plan-request");

export async function queryPlan(req, res, dbId, collId) {
  const request = await readJson(req);
  const collection = collectionOf(dbId, collId);
  if (!collection.read()) return notFound(res);
  if (layoutOf(collection.documents).ranges.length === 1) return send(res, 200, passThroughPlan());
  if (typeof request?.query !== "string") return badRequest(res, "missing query");
  try {
    return send(res, 200, queryPlanFor(request.query, request.parameters));
  } catch (err) {
    if (!(err instanceof QueryShapeError)) throw err;
    return badRequest(res, err.message);
  }
}
