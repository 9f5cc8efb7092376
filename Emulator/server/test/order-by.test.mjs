// ORDER BY on one property keeps documents whose sort property is undefined, as Cosmos DB does, first when
// ascending and last when descending, also across pages (continuations).
import assert from "node:assert/strict";
import { test } from "node:test";
import { queryEngine } from "../compat/internals.mjs";
import { installOrderByUndefined } from "../compat/order-by.mjs";

installOrderByUndefined();

// _rid values order the ties the way the engine does (by _rid).
const documents = [
  { id: "three", _rid: "a1", v: 3 }, { id: "x", _rid: "a2", v: "x" }, { id: "none1", _rid: "a3" },
  { id: "null", _rid: "a4", v: null }, { id: "true", _rid: "a5", v: true }, { id: "one", _rid: "a6", v: 1 },
  { id: "false", _rid: "a7", v: false }, { id: "none2", _rid: "a8" },
];

function run(sql, maxItemCount) {
  const pages = [];
  let continuation;
  do {
    const page = queryEngine(sql).exec(documents, { maxItemCount, continuation });
    pages.push(page.result.map((d) => d.id));
    continuation = page.continuation;
  } while (continuation && pages.length < 20);
  return pages.flat();
}

test("ascending: undefined first, then null, booleans, numbers, strings", () => {
  const expected = ["none1", "none2", "null", "false", "true", "one", "three", "x"];
  assert.deepEqual(run("SELECT c.id FROM c ORDER BY c.v"), expected);
  assert.deepEqual(run("SELECT c.id FROM c ORDER BY c.v ASC", 1), expected);
  assert.deepEqual(run("SELECT c.id FROM c ORDER BY c.v", 3), expected);
});

test("descending: the reverse type order, undefined last", () => {
  const expected = ["x", "three", "one", "true", "false", "null", "none1", "none2"];
  assert.deepEqual(run("SELECT c.id FROM c ORDER BY c.v DESC"), expected);
  assert.deepEqual(run("SELECT c.id FROM c ORDER BY c.v DESC", 2), expected);
});

test("TOP applies after the order, undefined included", () => {
  assert.deepEqual(run("SELECT TOP 3 c.id FROM c ORDER BY c.v"), ["none1", "none2", "null"]);
  assert.deepEqual(run("SELECT TOP 3 c.id FROM c ORDER BY c.v", 2), ["none1", "none2", "null"]);
  assert.deepEqual(run("SELECT TOP 2 c.id FROM c ORDER BY c.v DESC"), ["x", "three"]);
});
