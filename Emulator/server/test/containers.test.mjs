import assert from "node:assert/strict";
import { test } from "node:test";
import { containerDefinitionError, isNonPartitioned, resourceIdError, withSystemPartitionKey } from "../compat/containers.mjs";

const hash = (paths, extra = {}) => ({ id: "c", partitionKey: { paths, kind: "Hash", ...extra } });

test("valid definitions are accepted", () => {
  assert.equal(containerDefinitionError(hash(["/pk"])), undefined);
  assert.equal(containerDefinitionError(hash(["/address/zip"], { version: 2 })), undefined);
  assert.equal(containerDefinitionError({ id: "c", partitionKey: { paths: ["/a", "/b", "/c"], kind: "MultiHash", version: 2 } }), undefined);
  assert.equal(containerDefinitionError({ id: "c" }), undefined); // non-partitioned: system key added on store
  assert.equal(containerDefinitionError({ ...hash(["/pk"]), uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/a"] }, { paths: ["/a", "/b"] }] } }), undefined);
  assert.equal(containerDefinitionError({ id: "x".repeat(255), partitionKey: { paths: ["/pk"] } }), undefined);
});

test("partition key definitions Cosmos DB refuses", () => {
  for (const [definition, fragment] of [
    [hash(["pk"]), "must start with '/'"],
    [hash(["/"]), "every step"],
    [hash(["/a//b"]), "every step"],
    [hash(["/a/*"]), "every step"],
    [hash([]), "at least one path"],
    [hash(["/a", "/b"]), "exactly one path"],
    [hash(["/a"], { version: 3 }), "must be 1 or 2"],
    [hash(["/a"], { kind: "Range" }), "'Hash' or 'MultiHash'"],
    [{ id: "c", partitionKey: { paths: ["/a", "/b", "/c", "/d"], kind: "MultiHash", version: 2 } }, "at most 3"],
    [{ id: "c", partitionKey: { paths: ["/a", "/b"], kind: "MultiHash", version: 1 } }, "requires version 2"],
    [{ id: "c", partitionKey: { paths: ["/a", "/a"], kind: "MultiHash", version: 2 } }, "more than once"],
  ]) {
    const error = containerDefinitionError(definition);
    assert.ok(error?.includes(fragment), `${JSON.stringify(definition)}: ${error}`);
  }
});

test("unique key policies Cosmos DB refuses", () => {
  const withKeys = (uniqueKeys) => ({ ...hash(["/pk"]), uniqueKeyPolicy: { uniqueKeys } });
  assert.match(containerDefinitionError(withKeys([{ paths: [] }])), /at least one path/);
  assert.match(containerDefinitionError(withKeys([{ paths: ["email"] }])), /must start with '\/'/);
  assert.match(containerDefinitionError(withKeys([{ paths: ["/a", "/a"] }])), /more than once/);
  assert.match(containerDefinitionError(withKeys([{ paths: ["/a", "/b"] }, { paths: ["/b", "/a"] }])), /repeats/);
});

test("resource ids: non-empty, at most 255 characters, none of / \\ ? #", () => {
  assert.equal(resourceIdError("a".repeat(255)), undefined);
  assert.match(resourceIdError("a".repeat(256)), /256 characters/);
  assert.match(resourceIdError(""), /non-empty/);
  for (const bad of ["a/b", "a\\b", "a?b", "a#b"]) assert.match(resourceIdError(bad), /invalid character/);
});

test("a definition without a partition key is stored with Cosmos DB's system key", () => {
  const stored = withSystemPartitionKey({ id: "leases" });
  assert.deepEqual(stored.partitionKey, { paths: ["/_partitionKey"], kind: "Hash", systemKey: true });
  assert.ok(isNonPartitioned(stored));
  assert.ok(!isNonPartitioned(hash(["/pk"])));
  assert.equal(withSystemPartitionKey(hash(["/pk"])).partitionKey.paths[0], "/pk");
});
