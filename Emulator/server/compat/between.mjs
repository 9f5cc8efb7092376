// `x BETWEEN a AND b`. The server's engine compiles it to JavaScript's own `x >= a && x <= b`, which compares across
// types as JavaScript does: `null BETWEEN 0 AND 150` was true there (null >= 0), as was `"5" BETWEEN 1 AND 9`.
// In Cosmos DB, as for its `>=` and `<=`, values of different types do not compare (the result is undefined, so
// the row is not returned). Here every BETWEEN is rewritten, before the engine compiles it, into the engine's own
// comparisons joined by AND (its `compare` and `and` helpers, which follow Cosmos DB's rules), so BETWEEN means
// exactly `x >= a AND x <= b`. Found by the migration test of range query tokens: a null value matched a range.
import { queryParser } from "./internals.mjs";

const isNode = (value) => value !== null && typeof value === "object";

/** The AST with every scalar BETWEEN expression replaced by `value >= begin AND value <= end`. */
export function rewriteBetween(node) {
  if (Array.isArray(node)) return node.map(rewriteBetween);
  if (!isNode(node)) return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) copy[key] = rewriteBetween(value);
  if (copy.type !== "scalar_between_expression") return copy;
  const { value, begin, end } = copy;
  if (![value, begin, end].every(isNode)) {
    throw new Error("a BETWEEN expression without its value, lower or upper bound reached the endpoint's rewrite");
  }
  return {
    type: "scalar_binary_expression",
    operator: "AND",
    left: { type: "scalar_binary_expression", operator: ">=", left: value, right: begin },
    right: { type: "scalar_binary_expression", operator: "<=", left: value, right: end },
  };
}

export function installBetween() {
  const parse = queryParser.parse;
  queryParser.parse = (text, options) => rewriteBetween(parse(text, options));
}
