// Cosmos DB's item limits (compat/limits.mjs).
import assert from "node:assert/strict";
import test from "node:test";
import { itemLimitError, MAX_ITEM_BYTES } from "../compat/limits.mjs";

const v2 = { partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } };
const v1 = { partitionKey: { paths: ["/pk"], kind: "Hash" } };

test("an item over 2 MB is 413 RequestEntityTooLarge; 2 MB exactly is stored", () => {
  assert.equal(itemLimitError({ id: "a" }, MAX_ITEM_BYTES, v2, "p"), undefined);
  const refusal = itemLimitError({ id: "a" }, MAX_ITEM_BYTES + 10, v2, "p");
  assert.equal(refusal.statusCode, 413);
  assert.equal(refusal.body.code, "RequestEntityTooLarge");
});

test("ids: at most 255 characters, none of / \\ ? #: else 400", () => {
  assert.equal(itemLimitError({ id: "x".repeat(255) }, 300, v2, "p"), undefined);
  assert.equal(itemLimitError({ id: "x".repeat(256) }, 300, v2, "p").statusCode, 400);
  for (const id of ["a/b", "a\\b", "a?b", "a#b"]) {
    const refusal = itemLimitError({ id }, 20, v2, "p");
    assert.equal(refusal.statusCode, 400, id);
    assert.match(refusal.body.message, /invalid character/);
  }
});

test("partition key values: 2048 bytes with hash v2, 101 with v1 (UTF-8 bytes, not characters)", () => {
  assert.equal(itemLimitError({ id: "a" }, 10, v2, "k".repeat(2048)), undefined);
  assert.equal(itemLimitError({ id: "a" }, 10, v2, "k".repeat(2049)).statusCode, 400);
  assert.equal(itemLimitError({ id: "a" }, 10, v1, "k".repeat(101)), undefined);
  assert.equal(itemLimitError({ id: "a" }, 10, v1, "k".repeat(102)).statusCode, 400);
  assert.equal(itemLimitError({ id: "a" }, 10, v2, "é".repeat(1025)).statusCode, 400); // 2,050 bytes
  assert.equal(itemLimitError({ id: "a" }, 10, v2, 12345), undefined);
  assert.equal(itemLimitError({ id: "a" }, 10, v2, undefined), undefined);
});
