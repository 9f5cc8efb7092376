// RecordIO framing of HybridRow rows: a stream is one or more segments; a segment is a segment header row
// followed by records; a record is a record header row (body length and CRC-32 of the body) followed by the
// body (here: one BatchOperation or BatchResult row). Both headers are HybridRows of the RecordIO system
// schemas, told apart by their schema id:
//   segment header: 0x81 | 2147473648 | presence byte | int32 length of the header itself | [sparse columns]
//   record header:  0x81 | 2147473649 | int32 body length | uint32 CRC-32 (both non-nullable: no presence byte)
import { crc32 } from "./crc32.mjs";
import { BatchFormatError } from "./format-error.mjs";
import { HYBRID_ROW_V1 } from "./hybrid-row.mjs";

const SEGMENT_SCHEMA_ID = 2147473648;
const RECORD_SCHEMA_ID = 2147473649;
const SEGMENT_HEADER_SIZE = 10; // version, schema id, presence byte, length; no comment or schema
const RECORD_HEADER_SIZE = 13;

/**
 * Splits a RecordIO stream into its record bodies (subarrays of `stream`), checking every CRC.
 * @param {Buffer} stream
 * @returns {Buffer[]}
 */
export function readRecords(stream) {
  const records = [];
  let offset = 0;
  let inSegment = false;
  while (offset < stream.length) {
    if (stream.length - offset < 5 || stream[offset] !== HYBRID_ROW_V1) {
      throw new BatchFormatError(`expected a RecordIO header at byte ${offset}`);
    }
    const schemaId = stream.readInt32LE(offset + 1);
    if (schemaId === SEGMENT_SCHEMA_ID) {
      if (stream.length - offset < SEGMENT_HEADER_SIZE || (stream[offset + 5] & 1) === 0) {
        throw new BatchFormatError(`segment header without a length at byte ${offset}`);
      }
      const length = stream.readInt32LE(offset + 6);
      if (length < SEGMENT_HEADER_SIZE || offset + length > stream.length) {
        throw new BatchFormatError(`segment header length ${length} out of range at byte ${offset}`);
      }
      offset += length; // sparse columns (comment, schema) are of no use here
      inSegment = true;
    } else if (schemaId === RECORD_SCHEMA_ID) {
      if (!inSegment) throw new BatchFormatError("record before the first segment header");
      if (stream.length - offset < RECORD_HEADER_SIZE) throw new BatchFormatError(`truncated record header at byte ${offset}`);
      const length = stream.readInt32LE(offset + 5);
      const expectedCrc = stream.readUInt32LE(offset + 9);
      const start = offset + RECORD_HEADER_SIZE;
      if (length < 0 || start + length > stream.length) {
        throw new BatchFormatError(`record length ${length} at byte ${offset} runs past the end of the body`);
      }
      const body = stream.subarray(start, start + length);
      if (crc32(body) !== expectedCrc) throw new BatchFormatError(`CRC-32 mismatch in the record at byte ${offset}`);
      records.push(body);
      offset = start + length;
    } else {
      throw new BatchFormatError(`unexpected schema id ${schemaId} at byte ${offset}`);
    }
  }
  return records;
}

/**
 * Frames record bodies as a RecordIO stream with one segment.
 * @param {Buffer[]} bodies
 * @returns {Buffer}
 */
export function writeRecords(bodies) {
  const segment = Buffer.alloc(SEGMENT_HEADER_SIZE);
  segment[0] = HYBRID_ROW_V1;
  segment.writeInt32LE(SEGMENT_SCHEMA_ID, 1);
  segment[5] = 1; // length is present
  segment.writeInt32LE(SEGMENT_HEADER_SIZE, 6);
  const parts = [segment];
  for (const body of bodies) {
    const header = Buffer.alloc(RECORD_HEADER_SIZE);
    header[0] = HYBRID_ROW_V1;
    header.writeInt32LE(RECORD_SCHEMA_ID, 1);
    header.writeInt32LE(body.length, 5);
    header.writeUInt32LE(crc32(body), 9);
    parts.push(header, body);
  }
  return Buffer.concat(parts);
}
