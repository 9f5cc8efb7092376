// Effective partition keys (EPK) of hash partitioning version 2, as Cosmos DB and its SDKs compute them: the
// partition key value is written with a type marker (undefined 00, null 01, false 02, true 03, number 05 +
// IEEE 754 double little-endian, string 08 + UTF-8 + FF), hashed with MurmurHash3 x64 128 (seed 0), and the
// 16 hash bytes, most significant first, become 32 upper-case hex digits with the top two bits cleared (so
// every EPK sorts below "FF", the end of the key space). The .NET SDK computes the same EPK to route
// queries, change feed and bulk operations to a partition key range, so this must agree byte for byte
// (test/epk.test.mjs checks published vectors).
import { murmur3x64_128 } from "./murmur3.mjs";

export const MIN_EPK = "";
export const MAX_EPK = "FF";

function componentBytes(value) {
  if (value === undefined) return Buffer.from([0x00]);
  if (value === null) return Buffer.from([0x01]);
  if (value === false) return Buffer.from([0x02]);
  if (value === true) return Buffer.from([0x03]);
  if (typeof value === "number") {
    const bytes = Buffer.alloc(9);
    bytes[0] = 0x05;
    bytes.writeDoubleLE(value, 1);
    return bytes;
  }
  if (typeof value === "string") return Buffer.concat([Buffer.from([0x08]), Buffer.from(value, "utf8"), Buffer.from([0xff])]);
  // Objects and arrays are not partition key values; PartitionKey.None arrives as `{}` and means undefined.
  if (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0) return Buffer.from([0x00]);
  throw new TypeError(`a partition key value must be a string, number, boolean or null, not ${Array.isArray(value) ? "an array" : typeof value}`);
}

const hex64 = (value) => value.toString(16).padStart(16, "0").toUpperCase();

/** The EPK (hash v2) of one partition key value. */
export function effectivePartitionKey(value) {
  const [low, high] = murmur3x64_128(componentBytes(value));
  const digits = hex64(high) + hex64(low);
  const first = Number.parseInt(digits.slice(0, 2), 16) & 0x3f;
  return first.toString(16).padStart(2, "0").toUpperCase() + digits.slice(2);
}

/** True when the container hashes its partition key with version 2 (the only version served with several ranges). */
export const usesHashV2 = (container) => container?.partitionKey?.version === 2;
