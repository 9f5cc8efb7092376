// CRC-32 (ISO 3309 / ITU-T V.42, the one zip and PNG use): RecordIO puts it in every record header and the SDK
// checks it on the records it reads. Table-driven, computed once.
const TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  TABLE[n] = c >>> 0;
}

/** @param {Uint8Array} bytes @returns {number} the CRC-32 as an unsigned 32-bit number */
export function crc32(bytes) {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
