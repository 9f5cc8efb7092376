// SQL the server's query engine cannot parse: `SELECT [TOP n] DISTINCT ...` and `... OFFSET m LIMIT n`.
// Both are clauses over the result of the rest of the query, so the rest runs on the server's engine (same
// functions, UDFs, ORDER BY and composite indexes) and the clauses are applied to its whole result, in
// Cosmos DB's order: DISTINCT (keeping first occurrences, so ORDER BY holds), then TOP, then OFFSET/LIMIT.
// The result is then paged by position (the continuation is the position of the next item).
// Every query of a container goes through `Documents.prototype._getQuery(sql)`, which is wrapped here.
// Only the outermost query's clauses are handled (not DISTINCT inside a subquery).
import { Documents, queryEngine } from "./internals.mjs";

const DISTINCT_PREFIX = /^(\s*SELECT\s+)(?:TOP\s+(\d+|@[A-Za-z_]\w*)\s+)?DISTINCT\s+/i;
const OFFSET_LIMIT_SUFFIX = /\s+OFFSET\s+(\d+|@[A-Za-z_]\w*)\s+LIMIT\s+(\d+|@[A-Za-z_]\w*)\s*;?\s*$/i;

/** The query without the clauses, and the clauses; undefined when the query has neither. */
export function splitClauses(sql) {
  let rest = sql;
  let distinct = false;
  let top;
  const prefix = DISTINCT_PREFIX.exec(rest);
  if (prefix) {
    distinct = true;
    top = prefix[2];
    rest = prefix[1] + rest.slice(prefix[0].length);
  }
  let offset;
  let limit;
  const suffix = OFFSET_LIMIT_SUFFIX.exec(rest);
  if (suffix) {
    [, offset, limit] = suffix;
    rest = rest.slice(0, suffix.index);
  }
  return distinct || suffix ? { sql: rest, distinct, top, offset, limit } : undefined;
}

function resolveCount(value, parameters, clause) {
  if (value === undefined) return undefined;
  let count = value;
  if (value.startsWith("@")) {
    const parameter = (parameters ?? []).find((p) => p.name === value);
    if (!parameter) throw Object.assign(new Error(`${clause}: parameter ${value} is not defined`), { badRequest: true });
    count = parameter.value;
  }
  const number = Number(count);
  if (!Number.isSafeInteger(number) || number < 0) {
    throw Object.assign(new Error(`${clause} must be a non-negative integer, got ${count}`), { badRequest: true });
  }
  return number;
}

// JSON with sorted object keys: DISTINCT compares values, not property order.
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

function distinctValues(items) {
  const seen = new Set();
  return items.filter((item) => {
    const key = canonicalJson(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function withClauses(inner, clauses) {
  return {
    exec(documents, options = {}) {
      const { parameters, maxItemCount, continuation } = options;
      let items = inner.exec(documents, { ...options, maxItemCount: undefined, continuation: undefined }).result;
      if (clauses.distinct) items = distinctValues(items);
      const top = resolveCount(clauses.top, parameters, "TOP");
      if (top !== undefined) items = items.slice(0, top);
      const offset = resolveCount(clauses.offset, parameters, "OFFSET");
      if (offset !== undefined) items = items.slice(offset, offset + resolveCount(clauses.limit, parameters, "LIMIT"));

      const start = Number.isSafeInteger(continuation?.position) ? continuation.position : 0;
      const end = maxItemCount > 0 ? start + maxItemCount : items.length;
      return { result: items.slice(start, end), continuation: end < items.length ? { position: end } : null };
    },
  };
}

/** A query object (`exec(documents, options)`) for SQL with or without the clauses. */
export function compileQuery(sql, compile = queryEngine) {
  const clauses = splitClauses(sql);
  return clauses ? withClauses(compile(clauses.sql), clauses) : compile(sql);
}

export function installQueryExtensions() {
  const serverGetQuery = Documents.prototype._getQuery;
  Documents.prototype._getQuery = function getQueryWithClauses(sql) {
    return compileQuery(sql, (innerSql) => serverGetQuery.call(this, innerSql));
  };
}
