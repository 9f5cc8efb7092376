// Query plans. Without the native query engine (Windows only), the .NET SDK asks the gateway for a plan
// before every cross-partition query (and before some partition-scoped ones): the query is POSTed with
// `x-ms-cosmos-is-query-plan-request: True` and a `PartitionedQueryExecutionInfo` is expected back. The
// server runs the query instead and the SDK fails to parse the documents as a plan. A container here has a
// single partition key range and the server evaluates ORDER BY, TOP and aggregates itself, so a constant
// pass-through plan (no rewriting, no client-side pipeline, the full range) gives correct results.
import { isTrue, send } from "./respond.mjs";
import { readJson } from "./internals.mjs";

export const isQueryPlanRequest = (req) => req.method === "POST" && isTrue(req, "x-ms-cosmos-is-query-plan-request");

const PASS_THROUGH_PLAN = Object.freeze({
  partitionedQueryExecutionInfoVersion: 2,
  queryInfo: {
    distinctType: "None",
    top: null,
    offset: null,
    limit: null,
    orderBy: [],
    orderByExpressions: [],
    groupByExpressions: [],
    groupByAliases: [],
    aggregates: [],
    groupByAliasToAggregateType: {},
    rewrittenQuery: "",
    hasSelectValue: false,
    hasNonStreamingOrderBy: false,
  },
  queryRanges: [{ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false }],
});

export async function queryPlan(req, res) {
  await readJson(req); // drain the body so the connection can be reused
  return send(res, 200, PASS_THROUGH_PLAN);
}
