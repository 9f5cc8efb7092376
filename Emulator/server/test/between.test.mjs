// BETWEEN follows Cosmos DB's comparison rules (compat/between.mjs): values of another type than the bounds, null
// and missing values never match; NOT BETWEEN does not match them either (NOT undefined is undefined).
import assert from "node:assert/strict";
import { test } from "node:test";
import { installBetween, rewriteBetween } from "../compat/between.mjs";
import { queryEngine, queryParser } from "../compat/internals.mjs";

installBetween();

const documents = [
  { id: "n5", v: 5 },
  { id: "n0", v: 0 },
  { id: "n200", v: 200 },
  { id: "null", v: null },
  { id: "missing" },
  { id: "s5", v: "5" },
  { id: "t", v: true },
  { id: "arr", v: [5] },
  { id: "sb", v: "b" },
];
const ids = (sql, parameters) => queryEngine(sql).exec(documents, { parameters }).result.map((d) => d.id).sort();

test("numbers: only numbers within the bounds, bounds included", () => {
  assert.deepEqual(ids("SELECT c.id FROM c WHERE c.v BETWEEN 0 AND 150"), ["n0", "n5"]);
  assert.deepEqual(ids("SELECT c.id FROM c WHERE c.v BETWEEN @lo AND @hi", [{ name: "@lo", value: 1 }, { name: "@hi", value: 200 }]), ["n200", "n5"]);
});

test("strings compare with strings only", () => {
  assert.deepEqual(ids("SELECT c.id FROM c WHERE c.v BETWEEN 'a' AND 'c'"), ["sb"]);
  assert.deepEqual(ids("SELECT c.id FROM c WHERE c.v BETWEEN '0' AND '9'"), ["s5"]);
});

test("NOT BETWEEN returns the numbers outside, never another type", () => {
  assert.deepEqual(ids("SELECT c.id FROM c WHERE NOT (c.v BETWEEN 1 AND 150)"), ["n0", "n200"]);
});

test("the same as >= AND <= for every value generated", () => {
  const values = [null, true, false, -1, 0, 1, 2.5, 3, "", "a", "b", "3", [], {}];
  const literal = (v) => JSON.stringify(v);
  for (const lo of values.filter((v) => typeof v !== "object")) {
    for (const hi of values.filter((v) => typeof v !== "object")) {
      const between = ids(`SELECT c.id FROM c WHERE c.v BETWEEN ${literal(lo)} AND ${literal(hi)}`);
      const pair = ids(`SELECT c.id FROM c WHERE c.v >= ${literal(lo)} AND c.v <= ${literal(hi)}`);
      assert.deepEqual(between, pair, `BETWEEN ${literal(lo)} AND ${literal(hi)}`);
    }
  }
});

test("the rewrite leaves no BETWEEN in the tree, also nested and in a projection", () => {
  const ast = queryParser.parse("SELECT (c.a BETWEEN 1 AND 2) AS x FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t BETWEEN 'a' AND 'z')");
  assert.ok(!JSON.stringify(ast).includes("scalar_between_expression"));
  assert.deepEqual(rewriteBetween({ type: "x", list: [1, "a", null] }), { type: "x", list: [1, "a", null] });
});
