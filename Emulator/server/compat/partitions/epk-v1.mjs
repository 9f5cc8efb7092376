// Effective partition keys of hash partitioning version 1 (the SDK's default without
// PartitionKeyDefinitionVersion.V2), as Cosmos DB and its SDKs compute them:
// - the value is truncated (a string to its first 100 characters) and written for hashing with a type marker
//   (undefined 00, null 01, false 02, true 03, number 05 + IEEE 754 double little-endian, string 08 + UTF-8 +
//   00), and hashed with MurmurHash3 x86 32 (seed 0);
// - the EPK is the binary encoding of two components, the hash as a number and the truncated value, as upper-
//   case hex. A number is 05 + its sortable 64-bit form (sign flipped for positives, negated for negatives)
//   written as its top byte then 7 bits per byte, each but the last with the low bit set; a string is 08 + each
//   UTF-8 byte plus one (FF stays FF), at most 101 bytes, then 00 when it was not cut. The encoding sorts as the
//   values do, so ranges split the hash space by EPK string comparison.
// test/epk-v1.test.mjs checks the hash against vectors published with Cosmos DB's SDKs (their string vectors hash
// the string without the 00 terminator, which the .NET SDK's routing writes); Sdk/ThroughputRangesTests checks the
// EPKs against the .NET SDK's own routing (ReadMany asks each range for the keys the SDK placed there).

const MAX_STRING_CHARS = 100;
const MAX_STRING_BYTES_TO_APPEND = 100;

/** MurmurHash3 x86 32-bit. */
export function murmur3x86_32(bytes, seed = 0) {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const mix = (k) => Math.imul(((Math.imul(k, c1) << 15) | (Math.imul(k, c1) >>> 17)), c2);
  let h = seed >>> 0;
  const blocks = bytes.length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    h ^= mix(bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const rest = bytes.length & 3;
  if (rest === 3) k ^= bytes[blocks + 2] << 16;
  if (rest >= 2) k ^= bytes[blocks + 1] << 8;
  if (rest >= 1) {
    k ^= bytes[blocks];
    h ^= mix(k);
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const isNone = (value) => value === undefined
  || (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);

function truncated(value) {
  return typeof value === "string" && value.length > MAX_STRING_CHARS ? value.slice(0, MAX_STRING_CHARS) : value;
}

function hashingBytes(value) {
  if (isNone(value)) return Buffer.from([0x00]);
  if (value === null) return Buffer.from([0x01]);
  if (value === false) return Buffer.from([0x02]);
  if (value === true) return Buffer.from([0x03]);
  if (typeof value === "number") {
    const bytes = Buffer.alloc(9);
    bytes[0] = 0x05;
    bytes.writeDoubleLE(value, 1);
    return bytes;
  }
  if (typeof value === "string") return Buffer.concat([Buffer.from([0x08]), Buffer.from(value, "utf8"), Buffer.from([0x00])]);
  throw new TypeError(`a partition key value must be a string, number, boolean or null, not ${Array.isArray(value) ? "an array" : typeof value}`);
}

/** The hash v1 of a partition key value (a uint32). */
export const hashV1 = (value) => murmur3x86_32(hashingBytes(truncated(value)));

function numberEncoding(value) {
  const bits = Buffer.alloc(8);
  bits.writeDoubleBE(value);
  let payload = bits.readBigUInt64BE();
  const sign = 1n << 63n;
  payload = payload < sign ? payload ^ sign : (~payload + 1n) & ((1n << 64n) - 1n);
  const out = [0x05];
  let byte = Number(payload >> 56n);
  out.push(byte);
  payload = (payload << 8n) & ((1n << 64n) - 1n);
  byte = 0;
  let first = true;
  do {
    if (!first) out.push(byte | 0x01);
    byte = Number(payload >> 56n);
    payload = (payload << 7n) & ((1n << 64n) - 1n);
    first = false;
  } while (payload !== 0n);
  out.push(byte & 0xfe);
  return out;
}

function binaryEncoding(value) {
  if (isNone(value)) return [0x00];
  if (value === null) return [0x01];
  if (value === false) return [0x02];
  if (value === true) return [0x03];
  if (typeof value === "number") return numberEncoding(value);
  const utf8 = Buffer.from(value, "utf8");
  const short = utf8.length <= MAX_STRING_BYTES_TO_APPEND;
  const out = [0x08];
  for (let i = 0; i < (short ? utf8.length : MAX_STRING_BYTES_TO_APPEND + 1); i += 1) out.push(utf8[i] < 0xff ? utf8[i] + 1 : 0xff);
  if (short) out.push(0x00);
  return out;
}

const hex = (bytes) => Buffer.from(bytes).toString("hex").toUpperCase();

/** The EPK (hash v1) of one partition key value. */
export function effectivePartitionKeyV1(value) {
  const value100 = truncated(value);
  return hex([...numberEncoding(hashV1(value)), ...binaryEncoding(value100)]);
}

/** The EPK where hash v1 values from `hash` (an integer from 0 to 2^32) start: the hash's number encoding. */
export const hashBoundaryV1 = (hash) => hex(numberEncoding(hash));

/** The hash a range boundary stands for: 0 for the start of the space, 2^32 for its end ("FF"), else the hash. */
export function hashOfBoundaryV1(epk) {
  if (epk === "") return 0;
  if (epk === "FF") return 2 ** 32;
  for (let low = 0, high = 2 ** 32; low <= high;) {
    // Boundaries are number encodings of whole hashes and sort as the hashes do: a binary search finds it.
    const middle = Math.floor((low + high) / 2);
    const at = hashBoundaryV1(middle);
    if (at === epk) return middle;
    if (at < epk) low = middle + 1;
    else high = middle - 1;
  }
  throw new RangeError(`${epk} is not a hash v1 range boundary`);
}

/** The EPK at which the hash v1 space is cut into `count` equal parts (index 1 .. count - 1). */
export const boundaryV1 = (index, count) => hashBoundaryV1(Math.floor((2 ** 32 * index) / count));
