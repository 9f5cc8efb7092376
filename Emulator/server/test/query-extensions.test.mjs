// Unit tests of the DISTINCT and OFFSET/LIMIT clauses applied over the server's own query engine.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileQuery, splitClauses } from "../compat/query-extensions.mjs";

const docs = [
  { id: "a", _rid: "1", pk: "p1", score: 3, tags: { x: 1, y: 2 } },
  { id: "b", _rid: "2", pk: "p0", score: 1, tags: { y: 2, x: 1 } },
  { id: "c", _rid: "3", pk: "p1", score: 2, tags: { x: 2 } },
  { id: "d", _rid: "4", pk: "p2", score: 0, tags: { x: 2 } },
];
const run = (sql, options) => compileQuery(sql).exec(docs, options).result;

test("queries without the clauses are left to the engine as they are", () => {
  assert.equal(splitClauses("SELECT * FROM c WHERE c.name = 'SELECT DISTINCT x OFFSET 1 LIMIT 2'"), undefined);
  assert.deepEqual(run("SELECT VALUE c.id FROM c ORDER BY c.score"), ["d", "b", "c", "a"]);
});

test("DISTINCT keeps the first of equal values, objects compared by value", () => {
  assert.deepEqual(run("SELECT DISTINCT VALUE c.pk FROM c ORDER BY c.score"), ["p2", "p0", "p1"]);
  assert.deepEqual(run("select distinct c.tags from c"), [{ tags: { x: 1, y: 2 } }, { tags: { x: 2 } }]);
});

test("TOP applies after DISTINCT", () => {
  assert.deepEqual(run("SELECT TOP 2 DISTINCT VALUE c.pk FROM c ORDER BY c.score"), ["p2", "p0"]);
});

test("OFFSET/LIMIT windows the ordered result, with literals or parameters", () => {
  assert.deepEqual(run("SELECT VALUE c.id FROM c ORDER BY c.score OFFSET 1 LIMIT 2"), ["b", "c"]);
  assert.deepEqual(
    run("SELECT VALUE c.id FROM c ORDER BY c.score OFFSET @skip LIMIT @take", { parameters: [{ name: "@skip", value: 3 }, { name: "@take", value: 5 }] }),
    ["a"]);
  assert.deepEqual(run("SELECT DISTINCT VALUE c.pk FROM c ORDER BY c.score OFFSET 1 LIMIT 1"), ["p0"]);
});

test("the result is paged by position", () => {
  const query = compileQuery("SELECT VALUE c.id FROM c ORDER BY c.score OFFSET 0 LIMIT 3");
  const first = query.exec(docs, { maxItemCount: 2 });
  const second = query.exec(docs, { maxItemCount: 2, continuation: first.continuation });

  assert.deepEqual([first.result, second.result, second.continuation], [["d", "b"], ["c"], null]);
});

test("a bad count is the query's fault", () => {
  assert.throws(() => run("SELECT * FROM c OFFSET @x LIMIT 1"), (e) => e.badRequest === true && /@x/.test(e.message));
});
