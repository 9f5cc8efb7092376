// Hash partitioning version 1 (compat/partitions/epk-v1.mjs): MurmurHash3 x86 32 of the truncated value,
// against the baseline published with Cosmos DB's SDKs (PartitionKeyHashBaselineTest: Singletons, Strings,
// Numbers). The baseline hashes a string as 08 + UTF-8; the .NET SDK's routing (its EPK) hashes 08 + UTF-8 + 00,
// which Sdk/ThroughputRangesTests confirms against the SDK, so strings are checked here on the hash function.
import assert from "node:assert/strict";
import test from "node:test";
import { boundaryV1, effectivePartitionKeyV1, hashV1, murmur3x86_32 } from "../compat/partitions/epk-v1.mjs";

const VECTORS = [
  [undefined, 0x514e28b7],
  [{}, 0x514e28b7], // PartitionKey.None as the SDK sends it
  [null, 0xe45ad1ab],
  [true, 0x5e2a8076],
  [false, 0x6c27d09f],
  [0, 0x1eda80a6],
  [-0, 0xb03da650],
  [1, 0xe1655a93],
  [-1, 0x452bdbe7],
  [5e-324, 0xac83d318],
  [1.7976931348623157e308, 0x378b3c46],
  [-1.7976931348623157e308, 0xe38dd8a1],
  [9007199254740991, 0x13f69b8a],
  [9007199254740992, 0xa30cce12],
];

for (const [value, expected] of VECTORS) {
  test(`hash v1 of ${JSON.stringify(value)?.slice(0, 20)}`, () => {
    assert.equal(hashV1(value), expected);
  });
}

const STRING_VECTORS = [
  ["", 0x2036bcc7],
  ["asdf", 0xfa36e790],
  ["a".repeat(99), 0xa36f6bfe],
  ["a".repeat(100), 0x0d64e325],
];

test("MurmurHash3 x86 32 of the baseline's string encoding (08 + UTF-8)", () => {
  for (const [value, expected] of STRING_VECTORS) {
    assert.equal(murmur3x86_32(Buffer.concat([Buffer.from([0x08]), Buffer.from(value, "utf8")])), expected, value.slice(0, 10));
  }
});

test("strings are cut to 100 characters before hashing", () => {
  assert.equal(hashV1("a".repeat(101)), hashV1("a".repeat(100)));
  assert.equal(hashV1("a".repeat(2048)), hashV1("a".repeat(100)));
  assert.notEqual(hashV1("a".repeat(99)), hashV1("a".repeat(100)));
});

test("an EPK is the encoded hash, then the encoded value; it sorts by hash", () => {
  assert.match(effectivePartitionKeyV1("asdf"), /^05/);
  assert.ok(effectivePartitionKeyV1("asdf").endsWith("0862746567" + "00")); // 08, each byte + 1, 00
  const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
  const byHash = [...keys].sort((a, b) => hashV1(a) - hashV1(b) || (a < b ? -1 : 1));
  const byEpk = [...keys].sort((a, b) => (effectivePartitionKeyV1(a) < effectivePartitionKeyV1(b) ? -1 : 1));
  assert.deepEqual(byEpk.map(hashV1), byHash.map(hashV1));
});

test("boundaries cut the hash space in order, and every key falls between the first and the last", () => {
  const cuts = [1, 2, 3].map((i) => boundaryV1(i, 4));
  assert.deepEqual([...cuts].sort(), cuts);
  for (let i = 0; i < 200; i += 1) {
    const epk = effectivePartitionKeyV1(`key-${i}`);
    const quarter = Math.floor(hashV1(`key-${i}`) / 2 ** 30);
    assert.equal(cuts.filter((cut) => cut <= epk).length, quarter);
  }
});

test("a hash-v1 range splits at the middle of its hash values, and every key stays in exactly one child", async () => {
  const { hashV1Layout } = await import("../compat/partitions/ranges.mjs");
  const { hashBoundaryV1, hashOfBoundaryV1 } = await import("../compat/partitions/epk-v1.mjs");
  for (const hash of [0, 1, 2 ** 31, 2 ** 32 - 1, 123456789]) assert.equal(hashOfBoundaryV1(hashBoundaryV1(hash)), hash);
  const layout = hashV1Layout(1);
  const [low, high] = layout.split("0");
  assert.equal(low.maxExclusive, boundaryV1(1, 2));
  const [lowest] = layout.split(low.id);
  assert.equal(lowest.maxExclusive, boundaryV1(1, 4));
  for (let i = 0; i < 400; i += 1) {
    const epk = effectivePartitionKeyV1(`key-${i}`);
    const holders = layout.ranges.filter((range) => range.minInclusive <= epk && epk < range.maxExclusive);
    assert.equal(holders.length, 1);
    assert.equal(holders[0].id, layout.rangeOfEpk(epk).id);
  }
  assert.ok(high.parents.includes("0"));
});
