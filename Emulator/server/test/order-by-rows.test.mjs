// The order the SDK's cross-partition ORDER BY merge needs from each range, and paging by position in it.
import assert from "node:assert/strict";
import test from "node:test";
import { compareValues, documentOrder, orderRows, positionOf, rowComparator, rowsAfter } from "../compat/query/order-by-rows.mjs";
import { encodeResourceId } from "../compat/resource-ids.mjs";

const rid = (n) => {
  const bytes = Buffer.alloc(16);
  bytes.writeBigUInt64LE(BigInt(n), 8);
  return encodeResourceId(bytes);
};
const row = (n, ...items) => ({ _rid: rid(n), n, orderByItems: items.map((item) => (item === undefined ? {} : { item })) });
const ns = (rows) => rows.map((r) => r.n);

test("values order by type, then by value", () => {
  const ordered = [undefined, null, false, true, -1, 0, 2.5, "", "A", "a", [], {}];
  for (let i = 0; i < ordered.length; i += 1) {
    for (let j = 0; j < ordered.length; j += 1) {
      assert.equal(Math.sign(compareValues(ordered[i], ordered[j])), Math.sign(i - j), `${i} vs ${j}`);
    }
  }
});

test("a rid's document order is its little-endian document part, as the SDK reads it", () => {
  assert.equal(documentOrder(rid(258)), 258n);
  assert.ok(documentOrder(rid(256)) > documentOrder(rid(255)));
  assert.equal(documentOrder("not-a-rid"), 0n);
});

test("ties come in document order, reversed when the first item is descending", () => {
  const rows = [row(300, 1), row(2, 1), row(1, 0), row(256, 1)];
  assert.deepEqual(ns(orderRows(rows, [false])), [1, 2, 256, 300]);
  assert.deepEqual(ns(orderRows(rows, [true])), [300, 256, 2, 1]);
});

test("paging by position returns every row once, whatever the page size, with ties and undefined values", () => {
  const random = (seed) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const next = random(7);
  for (let trial = 0; trial < 50; trial += 1) {
    const descending = [next() < 0.5, next() < 0.5];
    const rows = Array.from({ length: 1 + Math.floor(next() * 40) }, (_, i) =>
      row(1 + Math.floor(next() * 1000) * 64 + i, next() < 0.2 ? undefined : Math.floor(next() * 4), Math.floor(next() * 3)));
    const compare = rowComparator(descending);
    const all = orderRows(rows, descending);
    const pageSize = 1 + Math.floor(next() * 7);
    const seen = [];
    let position;
    for (;;) {
      const remaining = position ? rowsAfter(all, position, compare) : all;
      const page = remaining.slice(0, pageSize);
      seen.push(...page);
      if (page.length === remaining.length) break;
      position = positionOf(page, compare, position);
    }
    assert.deepEqual(ns(seen), ns(all), `trial ${trial}, page size ${pageSize}`);
  }
});

test("rows of one document (a JOIN) spanning pages are each returned once", () => {
  const same = [row(5, 1), row(5, 1), row(5, 1), row(5, 1), row(6, 1)];
  const compare = rowComparator([false]);
  const first = same.slice(0, 2);
  const position = positionOf(first, compare);
  const second = rowsAfter(same, position, compare).slice(0, 1);
  const position2 = positionOf(second, compare, position);
  assert.equal(position2.same, 3);
  assert.deepEqual(ns(rowsAfter(same, position2, compare)), [5, 6]);
});
