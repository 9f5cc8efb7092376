// Partition key ranges and splits (compat/partitions/ranges.mjs) and the gateway query plans that let the
// SDK merge several ranges (compat/query/plan.mjs).
import assert from "node:assert/strict";
import test from "node:test";
import { effectivePartitionKey } from "../compat/partitions/epk.mjs";
import { rangesForThroughput, RangeLayout } from "../compat/partitions/ranges.mjs";
import { queryPlanFor, runPartialAggregate } from "../compat/query/plan.mjs";
import { applyResumeFilter } from "../compat/query/resume-filter.mjs";
import { encodeResourceId } from "../compat/resource-ids.mjs";

test("a layout's ranges cover the whole EPK space without gaps, in order", () => {
  const layout = new RangeLayout(3);
  assert.equal(layout.ranges[0].minInclusive, "");
  assert.equal(layout.ranges.at(-1).maxExclusive, "FF");
  for (let i = 1; i < layout.ranges.length; i += 1) assert.equal(layout.ranges[i].minInclusive, layout.ranges[i - 1].maxExclusive);
});

test("every EPK has exactly one range, also after splits", () => {
  const layout = new RangeLayout(2);
  layout.split("0");
  layout.split("3");
  for (let i = 0; i < 300; i += 1) {
    const epk = effectivePartitionKey(`key-${i}`);
    assert.equal(layout.ranges.filter((r) => r.minInclusive <= epk && epk < r.maxExclusive).length, 1);
  }
});

test("a split replaces a range by two children that name every ancestor and continue its LSN", () => {
  const layout = new RangeLayout(2);
  layout.byId("1").lsn = 7;
  const [low, high] = layout.split("1");
  assert.deepEqual([low.parents, high.parents], [["1"], ["1"]]);
  assert.deepEqual([low.lsn, high.lsn], [7, 7]);
  assert.equal(low.maxExclusive, high.minInclusive);
  assert.equal(layout.byId("1"), undefined);
  assert.deepEqual(layout.gone.get("1"), [low.id, high.id]);
  const [grandchild] = layout.split(low.id);
  assert.deepEqual(grandchild.parents, ["1", low.id]);
  assert.throws(() => layout.split("1"), /already split/);
  assert.equal(layout.version, 3);
});

const info = (sql, parameters) => queryPlanFor(sql, parameters).queryInfo;

test("ORDER BY is rewritten so that each result carries its sort values and the whole projection", () => {
  const plan = info("SELECT c.id, c.score AS s FROM c WHERE c.pk = 'a' ORDER BY c.score DESC, c.id");
  assert.deepEqual(plan.orderBy, ["Descending", "Ascending"]);
  assert.deepEqual(plan.orderByExpressions, ["c.score", "c.id"]);
  assert.equal(plan.rewrittenQuery, "SELECT c._rid, [{\"item\": c.score}, {\"item\": c.id}] AS orderByItems, " +
    "{\"id\": c.id, \"s\": c.score} AS payload FROM c WHERE (c.pk = 'a') AND ({documentdb-formattableorderbyquery-filter}) " +
    "ORDER BY c.score DESC, c.id ASC");
});

test("TOP, OFFSET/LIMIT and DISTINCT are the SDK's to apply over the merged ranges", () => {
  assert.equal(info("SELECT TOP 3 * FROM c").top, 3);
  const paged = info("SELECT * FROM c ORDER BY c.v OFFSET @skip LIMIT @take", [{ name: "@skip", value: 2 }, { name: "@take", value: 3 }]);
  assert.deepEqual([paged.offset, paged.limit], [2, 3]);
  assert.match(paged.rewrittenQuery, /^SELECT TOP 5 c\._rid/); // every range returns its first offset + limit
  assert.equal(info("SELECT DISTINCT VALUE c.pk FROM c").distinctType, "Unordered");
  assert.equal(info("SELECT DISTINCT VALUE c.v FROM c ORDER BY c.v").distinctType, "Ordered");
});

test("VALUE aggregates are rewritten to partial values the SDK combines", () => {
  const count = info("SELECT VALUE COUNT(1) FROM c WHERE c.v > 1");
  assert.deepEqual(count.aggregates, ["Count"]);
  assert.equal(count.rewrittenQuery, "SELECT VALUE [{\"item\": COUNT(1)}] FROM c WHERE c.v > 1");
  assert.equal(info("SELECT VALUE AVG(c.v) FROM c").rewrittenQuery, "SELECT VALUE [{\"item\": {\"sum\": SUM(c.v), \"count\": COUNT(c.v)}}] FROM c");
});

test("shapes the SDK could not merge are refused, not answered per range", () => {
  assert.throws(() => info("SELECT c.a, COUNT(1) AS n FROM c GROUP BY c.a"), /GROUP BY/);
  assert.throws(() => info("SELECT COUNT(1) AS n FROM c"), /SELECT VALUE/);
  assert.throws(() => info("SELECT * FROM c JOIN t IN c.tags ORDER BY c.v"), /JOIN/);
  assert.throws(() => info("SELECT c.a + 1 FROM c ORDER BY c.v"), /needs a name/);
  assert.doesNotThrow(() => info("SELECT (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c"));
});

test("a range's partial aggregate: MIN/MAX and AVG carry their count, an empty range counts for nothing", () => {
  const values = { "SELECT VALUE MIN(c.v) FROM c": [3], "SELECT VALUE COUNT(c.v) FROM c": [2] };
  assert.deepEqual(runPartialAggregate("SELECT VALUE [{\"item\": {\"min\": MIN(c.v), \"count\": COUNT(c.v)}}] FROM c", (sql) => values[sql]),
    [[{ item: { min: 3, count: 2 } }]]);
  assert.deepEqual(runPartialAggregate("SELECT VALUE [{\"item\": {\"min\": MIN(c.v), \"count\": COUNT(c.v)}}] FROM c", () => [0]),
    [[{ item: { count: 0 } }]]);
  assert.deepEqual(runPartialAggregate("SELECT VALUE [{\"item\": COUNT(1)}] FROM c", () => [5]), [[{ item: 5 }]]);
  assert.equal(runPartialAggregate("SELECT * FROM c", () => []), undefined);
});

test("a resume filter keeps the rows after the SDK's resume point, in each column's direction", () => {
  const sql = "SELECT c._rid, [{\"item\": c.a}, {\"item\": c.b}] AS orderByItems, c AS payload FROM c WHERE true ORDER BY c.a ASC, c.b DESC";
  // Real rids: the document part is what the SDK compares (a little-endian 64-bit number after 8 bytes).
  const rid = (n) => { const b = Buffer.alloc(16); b.writeBigUInt64LE(BigInt(n), 8); return encodeResourceId(b); };
  const row = (n, a, b) => ({ _rid: rid(n), n, orderByItems: [{ item: a }, { item: b }] });
  const rows = [row(1, undefined, "z"), row(2, 1, "z"), row(3, 1, "y"), row(4, 1, "y"), row(5, 2, "a")];
  const names = (filtered) => filtered.map((r) => `r${r.n}`);
  assert.deepEqual(names(applyResumeFilter(rows, sql, { value: [1, "y"], exclude: true })), ["r5"]);
  assert.deepEqual(names(applyResumeFilter(rows, sql, { value: [1, "y"], exclude: false })), ["r3", "r4", "r5"]);
  assert.deepEqual(names(applyResumeFilter(rows, sql, { value: [1, "y"], rid: rid(4), exclude: false })), ["r4", "r5"]);
  // A resume rid the range no longer holds (a split, a delete): the ties after it in document order still come back.
  assert.deepEqual(names(applyResumeFilter(rows, sql, { value: [1, "y"], rid: rid(3) + "", exclude: false })), ["r3", "r4", "r5"]);
  assert.deepEqual(names(applyResumeFilter([row(2, 1, "y"), row(9, 1, "y"), row(5, 2, "a")], sql, { value: [1, "y"], rid: rid(7), exclude: false })), ["r9", "r5"]);
  assert.deepEqual(names(applyResumeFilter(rows, sql, { value: [[], "z"], exclude: true })), ["r2", "r3", "r4", "r5"]); // [] is undefined
  assert.throws(() => applyResumeFilter(rows, sql, { value: [1], exclude: true }), /2 ORDER BY items/);
});

test("throughput decides the ranges: one per started 10,000 RU/s, at least one", () => {
  assert.equal(rangesForThroughput(undefined), 1);
  assert.equal(rangesForThroughput(400), 1);
  assert.equal(rangesForThroughput(10_000), 1);
  assert.equal(rangesForThroughput(10_001), 2);
  assert.equal(rangesForThroughput(25_000), 3);
  assert.equal(rangesForThroughput(1000, 400), 3);
});
