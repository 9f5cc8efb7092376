// Effective partition keys (hash v2) against vectors published with Cosmos DB's SDKs: the .NET SDK routes
// by the same values, so any difference would send a request to a range that does not hold the document.
import assert from "node:assert/strict";
import test from "node:test";
import { effectivePartitionKey } from "../compat/partitions/epk.mjs";

const VECTORS = [
  ["", "32E9366E637A71B4E710384B2F4970A0"],
  ["partitionKey", "013AEFCF77FA271571CF665A58C933F1"],
  ["a".repeat(1024), "332BDF5512AE49615F32C7D98C2DB86C"],
  [null, "378867E4430E67857ACE5C908374FE16"],
  [undefined, "11622DAA78F835834610ABE56EFF5CB5"],
  [{}, "11622DAA78F835834610ABE56EFF5CB5"], // PartitionKey.None as the SDK sends it
  [true, "0E711127C5B5A8E4726AC6DD306A3E59"],
  [false, "2FE1BE91E90A3439635E0E9E37361EF2"],
  [-128, "01DAEDABF913540367FE219B2AD06148"],
  [127, "0C507ACAC853ECA7977BF4CEFB562A25"],
];

for (const [value, expected] of VECTORS) {
  test(`EPK v2 of ${JSON.stringify(value)?.slice(0, 20)}`, () => {
    assert.equal(effectivePartitionKey(value), expected);
  });
}

test("EPKs stay below FF, the end of the key space", () => {
  for (let i = 0; i < 500; i += 1) assert.ok(effectivePartitionKey(`k${i}`) < "40");
});

test("arrays and objects are not partition key values", () => {
  assert.throws(() => effectivePartitionKey([1]), /not an array/);
  assert.throws(() => effectivePartitionKey({ a: 1 }), /not object/);
});
