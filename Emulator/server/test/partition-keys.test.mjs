// Logical partitions by the whole partition key (partition.mjs): the storage key the server files a document under
// and the header's key must agree for every value, typed (1 and "1", "" and none are different partitions), and a
// hierarchical key's EPK is its values' hash-v2 EPKs one after another (partitions/ranges.mjs). The request
// signature check (authorization.mjs) against Cosmos DB's payload format.
import assert from "node:assert/strict";
import test from "node:test";
import { sign, signaturePayload } from "../compat/authorization.mjs";
import { documentComponents, headerComponents, keyShape, storageKey } from "../compat/partition.mjs";
import { effectivePartitionKey } from "../compat/partitions/epk.mjs";
import { epkOf } from "../compat/partitions/ranges.mjs";

const hash = { partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } };
const multi = { partitionKey: { paths: ["/t", "/u", "/s"], kind: "MultiHash", version: 2 } };

test("a document's storage key is the header's for the same values", () => {
  const values = ["AgE+x/9=", "AgE-x_9", "日本語-😀", "", "a:/id:b", "\"]", 0, 1, -1.5, true, false, null];
  for (const value of values) {
    assert.equal(storageKey(documentComponents(hash, { id: "x", pk: value })), storageKey(headerComponents(JSON.stringify([value]))));
  }
  const doc = { id: "x", t: "a", u: "b", s: "c" };
  assert.equal(storageKey(documentComponents(multi, doc)), storageKey(headerComponents('["a","b","c"]')));
});

test("typed values and the none partition are different storage keys", () => {
  const keys = [["1"], [1], [""], [null], [undefined], [true], ["true"], ["a", "b"], ["a", "c"], ["ab"]].map(storageKey);
  assert.equal(keys[4], undefined); // none: the server files it by id, as before
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(storageKey(headerComponents("[{}]")), undefined);
  assert.equal(storageKey(headerComponents("[]")), undefined);
});

test("the header's shape against the definition: full, a hierarchical prefix, or refused", () => {
  assert.equal(keyShape(hash, ["a"]), "full");
  assert.equal(keyShape(hash, ["a", "b"]), undefined);
  assert.equal(keyShape(multi, ["a", "b", "c"]), "full");
  assert.equal(keyShape(multi, ["a"]), "prefix");
  assert.equal(keyShape(multi, ["a", "b"]), "prefix");
  assert.equal(keyShape(multi, ["a", "b", "c", "d"]), undefined);
});

test("a hierarchical key's EPK is its values' EPKs concatenated, so a prefix's range holds every key under it", () => {
  const full = epkOf(multi, ["a", "b", "c"]);
  assert.equal(full, effectivePartitionKey("a") + effectivePartitionKey("b") + effectivePartitionKey("c"));
  for (const prefix of [["a"], ["a", "b"]]) {
    const start = epkOf(multi, prefix);
    assert.ok(start <= full && full < `${start}FF`);
  }
  assert.ok(!(epkOf(multi, ["b"]) <= full && full < `${epkOf(multi, ["b"])}FF`));
});

test("the signature payload is Cosmos DB's (lower-case verb, type, dates; the link as given)", () => {
  const payload = signaturePayload("GET", "docs", "dbs/D/colls/C/docs/AgE+x9==", "Sun, 29 Nov 2026 02:49:35 GMT", "");
  assert.equal(payload, "get\ndocs\ndbs/D/colls/C/docs/AgE+x9==\nsun, 29 nov 2026 02:49:35 gmt\n\n");
  assert.match(sign(payload), /^[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(sign(payload), sign(payload.replace("AgE+x9==", "AgE x9==")));
});
