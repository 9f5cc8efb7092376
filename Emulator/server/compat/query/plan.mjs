// The query plan (`PartitionedQueryExecutionInfo`) the gateway gives the .NET SDK for a container with
// several partition key ranges. The SDK runs the plan's `rewrittenQuery` on every range and merges the
// pages itself: ORDER BY by the `orderByItems` each result carries, TOP / OFFSET / LIMIT / DISTINCT by
// counting and hashing results, and VALUE aggregates by combining each range's partial value. The rewritten
// shapes are the gateway's:
//   ORDER BY   SELECT <root>._rid, [{"item": <e1>}, ...] AS orderByItems, <projection> AS payload
//              FROM ... WHERE (<where>) AND ({documentdb-formattableorderbyquery-filter}) ORDER BY ...
//              (the SDK replaces the placeholder with `true`, or with a resume filter on a continuation)
//   aggregate  SELECT VALUE [{"item": COUNT(x)}] ... (SUM likewise; AVG {"sum", "count"}; MIN/MAX
//              {"min"/"max", "count"}, so that a range without values counts for nothing)
//   OFFSET m LIMIT n   each range returns its first m + n results (OFFSET 0 LIMIT m + n)
// Shapes the SDK would need and this endpoint cannot give (GROUP BY, aggregates without VALUE, ORDER BY
// over SELECT * with JOIN or unnamed projections) are refused with 400 naming the reason, rather than
// answered per range unmerged.
import { impliedName, parseClauses, QueryShapeError, rootAlias, splitTopLevel } from "./clauses.mjs";

export const ORDER_BY_FILTER = "{documentdb-formattableorderbyquery-filter}";
const AGGREGATE_CALL = /^(COUNT|SUM|MIN|MAX|AVG)\s*\(([\s\S]*)\)$/i;
const AGGREGATE_ANYWHERE = /\b(COUNT|SUM|MIN|MAX|AVG)\s*\(/i;
const AGGREGATE_NAMES = { COUNT: "Count", SUM: "Sum", MIN: "Min", MAX: "Max", AVG: "Average" };

/** A plan that changes nothing: one range, where the server evaluates the whole query itself. */
export const passThroughPlan = () => plan({ rewrittenQuery: "" });

function plan(queryInfo) {
  return {
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
      ...queryInfo,
    },
    queryRanges: [{ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false }],
  };
}

function resolveCount(value, parameters, clause) {
  if (value === undefined) return null;
  let count = value;
  if (value.startsWith("@")) {
    const parameter = (parameters ?? []).find((p) => p.name === value);
    if (!parameter) throw new QueryShapeError(`${clause}: parameter ${value} is not defined`);
    count = parameter.value;
  }
  const number = Number(count);
  if (!Number.isSafeInteger(number) || number < 0) throw new QueryShapeError(`${clause} must be a non-negative integer, got ${count}`);
  return number;
}

/** The text with everything inside parentheses blanked: an aggregate in a subquery is not the query's own. */
function maskNested(text) {
  let depth = 0;
  return [...text].map((ch) => {
    if (ch === "(") depth += 1;
    if (ch === ")") depth -= 1;
    return depth > 0 && ch !== "(" ? " " : ch;
  }).join("");
}

/** An aggregate function call that is the whole expression: { name, argument }, else undefined. */
function aggregateCall(expression) {
  const match = AGGREGATE_CALL.exec(expression.trim());
  if (!match) return undefined;
  // `COUNT(a) + MAX(b)` matches the pattern too; the argument must be one balanced expression.
  if (splitTopLevel(match[2], ")").length !== 1) return undefined;
  return { name: match[1].toUpperCase(), argument: match[2].trim() };
}

const tail = (shape) => `FROM ${shape.from}${shape.where ? ` WHERE ${shape.where}` : ""}`;

function partialAggregate({ name, argument }) {
  if (name === "AVG") return `{"sum": SUM(${argument}), "count": COUNT(${argument})}`;
  if (name === "MIN" || name === "MAX") return `{"${name.toLowerCase()}": ${name}(${argument}), "count": COUNT(${argument})}`;
  return `${name}(${argument})`;
}

function payloadOf(shape) {
  if (shape.value) return shape.select;
  if (shape.select === "*") {
    if (/\bJOIN\b/i.test(shape.from)) throw new QueryShapeError("ORDER BY over SELECT * with JOIN is not served across partitions");
    return rootAlias(shape.from);
  }
  const properties = splitTopLevel(shape.select).map((item) => {
    const aliased = /^([\s\S]+?)\s+(?:AS\s+)?([A-Za-z_]\w*)$/i.exec(item);
    const name = aliased && !/[.\]]$/.test(item) ? aliased[2] : impliedName(item);
    const expression = aliased && !/[.\]]$/.test(item) ? aliased[1] : item;
    if (!name) throw new QueryShapeError(`the projection '${item}' needs a name (AS) to be ordered across partitions`);
    return `${JSON.stringify(name)}: ${expression}`;
  });
  return `{${properties.join(", ")}}`;
}

/** The plan for a query over a container with several ranges; throws QueryShapeError for what is not served. */
export function queryPlanFor(sql, parameters) {
  const shape = parseClauses(sql);
  if (shape.groupBy) throw new QueryShapeError("GROUP BY is not served by this endpoint");
  const top = resolveCount(shape.top, parameters, "TOP");
  const offset = resolveCount(shape.offset, parameters, "OFFSET");
  const limit = resolveCount(shape.limit, parameters, "LIMIT");
  const ordered = shape.orderBy.length > 0;
  const queryInfo = {
    distinctType: shape.distinct ? (ordered ? "Ordered" : "Unordered") : "None",
    top,
    offset,
    limit,
    hasSelectValue: shape.value,
  };

  const aggregate = shape.value ? aggregateCall(shape.select) : undefined;
  if (aggregate) {
    if (ordered || shape.distinct || offset !== null) throw new QueryShapeError("an aggregate with ORDER BY, DISTINCT or OFFSET is not served across partitions");
    return plan({ ...queryInfo, aggregates: [AGGREGATE_NAMES[aggregate.name]], rewrittenQuery: `SELECT VALUE [{"item": ${partialAggregate(aggregate)}}] ${tail(shape)}` });
  }
  if (splitTopLevel(shape.select).some((projection) => AGGREGATE_ANYWHERE.test(maskNested(projection)))) {
    throw new QueryShapeError("an aggregate across partitions is served only as SELECT VALUE <aggregate>(...)");
  }

  // Each range returns at most what the merged result can use: TOP n, or the first offset + limit.
  const perRange = offset !== null ? offset + limit : top;
  const topClause = perRange !== null && !shape.distinct ? `TOP ${perRange} ` : "";
  if (ordered) {
    const root = rootAlias(shape.from);
    const items = shape.orderBy.map((o) => `{"item": ${o.expression}}`).join(", ");
    const where = shape.where ? `(${shape.where}) AND (${ORDER_BY_FILTER})` : ORDER_BY_FILTER;
    const orderBy = shape.orderBy.map((o) => `${o.expression} ${o.descending ? "DESC" : "ASC"}`).join(", ");
    return plan({
      ...queryInfo,
      orderBy: shape.orderBy.map((o) => (o.descending ? "Descending" : "Ascending")),
      orderByExpressions: shape.orderBy.map((o) => o.expression),
      rewrittenQuery: `SELECT ${topClause}${root}._rid, [${items}] AS orderByItems, ${payloadOf(shape)} AS payload FROM ${shape.from} WHERE ${where} ORDER BY ${orderBy}`,
    });
  }
  if (offset !== null || (shape.distinct && top !== null)) {
    const select = `${shape.distinct ? "DISTINCT " : ""}${shape.value ? "VALUE " : ""}${shape.select}`;
    return plan({ ...queryInfo, rewrittenQuery: `SELECT ${topClause}${select} ${tail(shape)}` });
  }
  return plan(queryInfo); // TOP, DISTINCT or nothing: the query as written runs on every range
}

const PARTIAL_AGGREGATE = /^SELECT VALUE \[\{"item": ([\s\S]+)\}\] (FROM [\s\S]+)$/;

/**
 * A range's part of a plan's aggregate (the rewritten `SELECT VALUE [{"item": ...}]` query), computed with
 * the engine's own aggregates: the query's result (one value, the array); undefined for any other query.
 * `run(sql)` evaluates SQL over the range and returns its results.
 */
export function runPartialAggregate(sql, run) {
  const match = PARTIAL_AGGREGATE.exec(sql.trim());
  if (!match) return undefined;
  const [, item, rest] = match;
  const value = (expression) => run(`SELECT VALUE ${expression} ${rest}`)[0];
  const object = /^\{"(sum|min|max)": (\w+)\(([\s\S]+)\), "count": COUNT\(([\s\S]+)\)\}$/.exec(item);
  if (object) {
    const [, key, fn, argument] = object;
    const count = value(`COUNT(${argument})`) ?? 0;
    const partial = count === 0 && key !== "sum" ? { count } : { [key]: value(`${fn}(${argument})`), count };
    return [[{ item: partial }]];
  }
  const call = AGGREGATE_CALL.exec(item);
  if (!call) return undefined;
  const result = value(item);
  // SUM over a range without documents is 0 (the neutral element), as the merged result expects.
  return [[result === undefined ? (call[1].toUpperCase() === "COUNT" || call[1].toUpperCase() === "SUM" ? { item: 0 } : {}) : { item: result }]];
}
