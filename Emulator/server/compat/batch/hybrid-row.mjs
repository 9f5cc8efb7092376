// HybridRow rows of flat schemas, the only kind the batch protocol uses. A row is:
//   version byte (0x81) | schema id (int32 LE)
//   presence bits: one per nullable fixed column, then one per variable column (bit i of byte i/8)
//   fixed columns, in schema order, at fixed offsets (absent ones still take their bytes)
//   variable columns, in schema order, present ones only: varuint length, bytes
//   sparse columns, any order: type code byte, path, value
// A sparse path is a varuint token: below the schema's token count it names a column (tokens are handed out
// in fixed, variable, sparse order, from 1; 0 is the empty path), else it is followed by the path's UTF-8
// bytes, whose length is the token minus the token count.
// All numbers are little-endian. Columns are described as { path, type, storage, nullable? } (nullable by
// default, as in the schema language); types: int32, uint32, float64, utf8, binary, bool (sparse only).
import { BatchFormatError } from "./format-error.mjs";

export const HYBRID_ROW_V1 = 0x81;

// Type codes of sparse values (the layout codes of HybridRow).
const CODE = Object.freeze({
  null: 1, false: 2, true: 3, int8: 5, int16: 6, int32: 7, int64: 8, uint8: 9, uint16: 10, uint32: 11,
  uint64: 12, varint: 13, varuint: 14, float32: 15, float64: 16, utf8: 20, binary: 21,
});

const FIXED_SIZE = Object.freeze({ int32: 4, uint32: 4, float64: 8 });

/** Precomputes offsets, presence bits and path tokens of a schema. */
export function compileLayout({ name, schemaId, columns }) {
  const fixed = columns.filter((c) => c.storage === "fixed");
  const variable = columns.filter((c) => c.storage === "variable");
  const sparse = columns.filter((c) => c.storage === "sparse");
  let bit = 0;
  let fixedSize = 0;
  const fixedColumns = fixed.map((c) => {
    if (!(c.type in FIXED_SIZE)) throw new Error(`${name}.${c.path}: unsupported fixed type ${c.type}`);
    const column = { ...c, bit: c.nullable === false ? -1 : bit++, offset: fixedSize, size: FIXED_SIZE[c.type] };
    fixedSize += column.size;
    return column;
  });
  const variableColumns = variable.map((c) => ({ ...c, bit: bit++ }));
  const bitmaskBytes = Math.ceil(bit / 8);
  const tokens = new Map([...fixed, ...variable, ...sparse].map((c, i) => [c.path, i + 1]));
  return {
    name,
    schemaId,
    fixedColumns,
    variableColumns,
    sparseColumns: new Map(sparse.map((c) => [c.path, c])),
    bitmaskBytes,
    fixedStart: 5 + bitmaskBytes,
    variableStart: 5 + bitmaskBytes + fixedSize,
    tokens,
    tokenCount: tokens.size + 1,
    pathOfToken: new Map([...tokens].map(([path, token]) => [token, path])),
  };
}

// ---- reading ----

class Cursor {
  constructor(bytes, offset, end) {
    this.bytes = bytes;
    this.offset = offset;
    this.end = end;
  }

  take(count, what) {
    if (this.offset + count > this.end) throw new BatchFormatError(`row truncated while reading ${what}`);
    const start = this.offset;
    this.offset += count;
    return start;
  }

  varuint(what) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      const byte = this.bytes[this.take(1, what)];
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new BatchFormatError(`varuint too long in ${what}`);
  }

  slice(count, what) {
    const start = this.take(count, what);
    return this.bytes.subarray(start, start + count);
  }
}

function readFixed(bytes, offset, type) {
  switch (type) {
    case "int32": return bytes.readInt32LE(offset);
    case "uint32": return bytes.readUInt32LE(offset);
    case "float64": return bytes.readDoubleLE(offset);
    default: throw new Error(`unsupported fixed type ${type}`);
  }
}

function readSparseValue(cursor, code, path) {
  const scalar = (size, read) => read(cursor.take(size, path));
  const b = cursor.bytes;
  switch (code) {
    case CODE.null: return null;
    case CODE.false: return false;
    case CODE.true: return true;
    case CODE.int8: return scalar(1, (o) => b.readInt8(o));
    case CODE.int16: return scalar(2, (o) => b.readInt16LE(o));
    case CODE.int32: return scalar(4, (o) => b.readInt32LE(o));
    case CODE.int64: return scalar(8, (o) => b.readBigInt64LE(o));
    case CODE.uint8: return scalar(1, (o) => b.readUInt8(o));
    case CODE.uint16: return scalar(2, (o) => b.readUInt16LE(o));
    case CODE.uint32: return scalar(4, (o) => b.readUInt32LE(o));
    case CODE.uint64: return scalar(8, (o) => b.readBigUInt64LE(o));
    case CODE.float32: return scalar(4, (o) => b.readFloatLE(o));
    case CODE.float64: return scalar(8, (o) => b.readDoubleLE(o));
    case CODE.varuint: return cursor.varuint(path);
    case CODE.utf8: return cursor.slice(cursor.varuint(path), path).toString("utf8");
    case CODE.binary: return Buffer.from(cursor.slice(cursor.varuint(path), path));
    default: throw new BatchFormatError(`unsupported sparse type code ${code} at ${path}`);
  }
}

/**
 * Reads a row of the given layout into { column path: value } (absent columns are left out; binary values
 * are Buffers; sparse columns the schema does not name are kept under their path).
 */
export function readRow(bytes, layout) {
  const row = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (row.length < layout.variableStart) throw new BatchFormatError(`${layout.name} row too short (${row.length} bytes)`);
  if (row[0] !== HYBRID_ROW_V1) throw new BatchFormatError(`unsupported HybridRow version 0x${row[0].toString(16)}`);
  const schemaId = row.readInt32LE(1);
  if (schemaId !== layout.schemaId) throw new BatchFormatError(`expected schema ${layout.name} (${layout.schemaId}), found ${schemaId}`);

  const present = (bit) => bit < 0 || (row[5 + (bit >> 3)] & (1 << (bit & 7))) !== 0;
  const values = {};
  for (const column of layout.fixedColumns) {
    if (present(column.bit)) values[column.path] = readFixed(row, layout.fixedStart + column.offset, column.type);
  }
  const cursor = new Cursor(row, layout.variableStart, row.length);
  for (const column of layout.variableColumns) {
    if (!present(column.bit)) continue;
    const bytes = cursor.slice(cursor.varuint(column.path), column.path);
    values[column.path] = column.type === "utf8" ? bytes.toString("utf8") : Buffer.from(bytes);
  }
  while (cursor.offset < cursor.end) {
    const code = cursor.bytes[cursor.take(1, "sparse type code")];
    const token = cursor.varuint("sparse path");
    const path = token < layout.tokenCount
      ? layout.pathOfToken.get(token) ?? ""
      : cursor.slice(token - layout.tokenCount, "sparse path").toString("utf8");
    values[path] = readSparseValue(cursor, code, path);
  }
  return values;
}

// ---- writing ----

function varuintBytes(value) {
  const out = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function lengthPrefixed(value) {
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value);
  return Buffer.concat([varuintBytes(bytes.length), bytes]);
}

function sparseValueBytes(type, value, path) {
  const fixed = (size, write) => {
    const b = Buffer.alloc(size);
    write(b);
    return [CODE[type], b];
  };
  switch (type) {
    case "bool": return [value ? CODE.true : CODE.false, Buffer.alloc(0)];
    case "int32": return fixed(4, (b) => b.writeInt32LE(value));
    case "uint32": return fixed(4, (b) => b.writeUInt32LE(value));
    case "float64": return fixed(8, (b) => b.writeDoubleLE(value));
    case "utf8":
    case "binary": return [CODE[type], lengthPrefixed(value)];
    default: throw new Error(`unsupported sparse type ${type} at ${path}`);
  }
}

/** Writes { column path: value } as a row of the given layout; undefined values are left out. */
export function writeRow(layout, values) {
  const head = Buffer.alloc(layout.variableStart);
  head[0] = HYBRID_ROW_V1;
  head.writeInt32LE(layout.schemaId, 1);
  const setBit = (bit) => {
    if (bit >= 0) head[5 + (bit >> 3)] |= 1 << (bit & 7);
  };
  for (const column of layout.fixedColumns) {
    const value = values[column.path];
    if (value === undefined) {
      if (column.bit < 0) throw new Error(`${layout.name}.${column.path} is required`);
      continue;
    }
    setBit(column.bit);
    const offset = layout.fixedStart + column.offset;
    if (column.type === "int32") head.writeInt32LE(value, offset);
    else if (column.type === "uint32") head.writeUInt32LE(value, offset);
    else head.writeDoubleLE(value, offset);
  }
  const parts = [head];
  for (const column of layout.variableColumns) {
    const value = values[column.path];
    if (value === undefined) continue;
    setBit(column.bit);
    parts.push(lengthPrefixed(value));
  }
  for (const [path, column] of layout.sparseColumns) {
    const value = values[path];
    if (value === undefined) continue;
    const [code, bytes] = sparseValueBytes(column.type, value, path);
    parts.push(Buffer.from([code]), varuintBytes(layout.tokens.get(path)), bytes);
  }
  return Buffer.concat(parts);
}
