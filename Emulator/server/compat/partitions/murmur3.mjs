// MurmurHash3 x64 128-bit (seed 0), the hash under Cosmos DB's hash partitioning version 2. BigInt keeps the
// 64-bit arithmetic exact; partition keys are short, so speed does not matter here.
const MASK = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

const rotl = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & MASK;

function fmix(k) {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK;
  k ^= k >> 33n;
  return k;
}

/** Little-endian 64-bit word of `bytes` at `offset`, reading only `length` bytes (the tail). */
function word(bytes, offset, length = 8) {
  let value = 0n;
  for (let i = length - 1; i >= 0; i -= 1) value = (value << 8n) | BigInt(bytes[offset + i]);
  return value;
}

/** Returns [h1, h2] as BigInts (the hash's low and high 64 bits). */
export function murmur3x64_128(bytes, seed = 0n) {
  let h1 = seed;
  let h2 = seed;
  const blocks = Math.floor(bytes.length / 16);
  for (let i = 0; i < blocks; i += 1) {
    let k1 = word(bytes, i * 16);
    let k2 = word(bytes, i * 16 + 8);
    k1 = (k1 * C1) & MASK; k1 = rotl(k1, 31); k1 = (k1 * C2) & MASK; h1 ^= k1;
    h1 = rotl(h1, 27); h1 = (h1 + h2) & MASK; h1 = (h1 * 5n + 0x52dce729n) & MASK;
    k2 = (k2 * C2) & MASK; k2 = rotl(k2, 33); k2 = (k2 * C1) & MASK; h2 ^= k2;
    h2 = rotl(h2, 31); h2 = (h2 + h1) & MASK; h2 = (h2 * 5n + 0x38495ab5n) & MASK;
  }
  const tail = blocks * 16;
  const rest = bytes.length - tail;
  if (rest > 8) {
    let k2 = word(bytes, tail + 8, rest - 8);
    k2 = (k2 * C2) & MASK; k2 = rotl(k2, 33); k2 = (k2 * C1) & MASK; h2 ^= k2;
  }
  if (rest > 0) {
    let k1 = word(bytes, tail, Math.min(rest, 8));
    k1 = (k1 * C1) & MASK; k1 = rotl(k1, 31); k1 = (k1 * C2) & MASK; h1 ^= k1;
  }
  const length = BigInt(bytes.length);
  h1 ^= length; h2 ^= length;
  h1 = (h1 + h2) & MASK; h2 = (h2 + h1) & MASK;
  h1 = fmix(h1); h2 = fmix(h2);
  h1 = (h1 + h2) & MASK; h2 = (h2 + h1) & MASK;
  return [h1, h2];
}
