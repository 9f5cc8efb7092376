// Known-answer vectors for bound cells (docs/wire-format.md, "Bound cells"), computed from the specification alone
// with Node's built-in crypto module: this script never calls the library. Run: node eng/vectors/bound-cell-vectors.mjs
// It writes bound-cell-vectors.json next to itself; Encryption.Custom.Tests checks the library against that file.
import { createCipheriv, createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const rootKey = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1)); // 01..20, as format 3's vectors
const fixedIv = Buffer.from(Array.from({ length: 16 }, (_, i) => i)); // 00..0f
const suffix = ' key with encryption algorithm:AEAD_AES_256_CBC_HMAC_SHA256 and key length:256';

const subKey = (label) => createHmac('sha256', rootKey).update(Buffer.from(label, 'utf16le')).digest();
const keys = {
  encryption: subKey('Microsoft SQL Server cell encryption' + suffix),
  boundMac: subKey('Encryption.Custom bound cell MAC' + suffix),
  commitment: subKey('Encryption.Custom document commitment' + suffix),
  queryToken: subKey('Encryption.Custom query token' + suffix),
};

const u16 = (n) => { if (n > 0xffff) throw new Error('too long for LP16'); const b = Buffer.alloc(2); b.writeUInt16BE(n); return b; };
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const lp16 = (bytes) => Buffer.concat([u16(bytes.length), bytes]);
const lp32 = (bytes) => Buffer.concat([u32(bytes.length), bytes]);
const utf8 = (s) => Buffer.from(s, 'utf8');

// One partition-key component: a type byte, then its canonical bytes.
function component(c) {
  switch (c.type) {
    case 'undefined': return Buffer.from([0x00]);
    case 'null': return Buffer.from([0x01]);
    case 'boolean': return Buffer.from([c.value ? 0x03 : 0x02]);
    case 'number': {
      const b = Buffer.alloc(9);
      b[0] = 0x04;
      b.writeDoubleBE(Object.is(c.value, -0) ? 0 : c.value, 1); // -0 and +0 are one value
      return b;
    }
    case 'string': return Buffer.concat([Buffer.from([0x05]), lp16(utf8(c.value))]);
    default: throw new Error('unknown component type ' + c.type);
  }
}

function digestInput(v) {
  return Buffer.concat([
    Buffer.from('EC-BIND-v1', 'ascii'),
    u32(v.format),
    lp16(utf8(v.algorithm)),
    lp16(utf8(v.dataEncryptionKeyId)),
    lp16(utf8(v.scope)),
    lp32(utf8(v.id)),
    Buffer.from([v.partitionKey.length]),
    ...v.partitionKey.map(component),
  ]);
}

function boundCell(v) {
  const input = digestInput(v);
  const digest = createHash('sha256').update(input).digest();
  const associatedData = Buffer.concat([Buffer.from([0x02]), digest, Buffer.from([v.marker]), lp16(utf8(v.selector))]);
  const plainText = Buffer.from(v.plainTextHex, 'hex');
  const cipher = createCipheriv('aes-256-cbc', keys.encryption, fixedIv); // PKCS#7 padding is Node's default
  const c = Buffer.concat([cipher.update(plainText), cipher.final()]);
  const bitLength = Buffer.alloc(8);
  bitLength.writeBigUInt64BE(BigInt(associatedData.length) * 8n);
  const tag = createHmac('sha256', keys.boundMac).update(Buffer.concat([associatedData, fixedIv, c, bitLength])).digest();
  const cell = Buffer.concat([Buffer.from([0x02]), tag, fixedIv, c]);
  return {
    ...v,
    digestInputHex: input.toString('hex'),
    digestHex: digest.toString('hex'),
    associatedDataHex: associatedData.toString('hex'),
    ivHex: fixedIv.toString('hex'),
    cellHex: cell.toString('hex'),
    valueBase64: Buffer.concat([Buffer.from([v.marker]), cell]).toString('base64'),
  };
}

const le64 = (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b.toString('hex'); };
const leDouble = (x) => { const b = Buffer.alloc(8); b.writeDoubleLE(x); return b.toString('hex'); };
const base = { format: 101, algorithm: 'MdeAeadAes256CbcHmac256Randomized', dataEncryptionKeyId: 'dek-1', scope: 'shop/customers' };

const vectors = [
  { name: 'string partition key, string value', ...base, id: 'alice', partitionKey: [{ type: 'string', value: 'alice' }], selector: '/ssn', marker: 2, plainTextHex: utf8('078-05-1120').toString('hex') },
  { name: 'same value, other document', ...base, id: 'bob', partitionKey: [{ type: 'string', value: 'bob' }], selector: '/ssn', marker: 2, plainTextHex: utf8('078-05-1120').toString('hex') },
  { name: 'number partition key, nested selector', ...base, id: 'order-7', partitionKey: [{ type: 'number', value: 42.5 }], selector: '/address/city', marker: 2, plainTextHex: utf8('Zürich').toString('hex') },
  { name: 'integer partition key, long value', ...base, id: 'n', partitionKey: [{ type: 'number', value: 7 }], selector: '/limit', marker: 4, plainTextHex: le64(42) },
  { name: 'negative zero partition key is zero', ...base, id: 'n', partitionKey: [{ type: 'number', value: -0 }], selector: '/limit', marker: 4, plainTextHex: le64(42) },
  { name: 'true partition key, double value', ...base, id: 'b', partitionKey: [{ type: 'boolean', value: true }], selector: '/score', marker: 3, plainTextHex: leDouble(-2.5) },
  { name: 'false partition key, boolean value', ...base, id: 'b', partitionKey: [{ type: 'boolean', value: false }], selector: '/active', marker: 5, plainTextHex: le64(1) },
  { name: 'null partition key', ...base, id: 'z', partitionKey: [{ type: 'null' }], selector: '/ssn', marker: 2, plainTextHex: utf8('x').toString('hex') },
  { name: 'document without its partition key', ...base, id: 'z', partitionKey: [{ type: 'undefined' }], selector: '/ssn', marker: 2, plainTextHex: utf8('x').toString('hex') },
  { name: 'container without a partition key', ...base, id: 'z', partitionKey: [], selector: '/ssn', marker: 2, plainTextHex: utf8('x').toString('hex') },
  {
    name: 'hierarchical partition key, array wildcard selector', ...base, id: 'card-holder', selector: '/cards/[]/number', marker: 2,
    partitionKey: [{ type: 'string', value: 'tenant-a' }, { type: 'number', value: 1e21 }, { type: 'boolean', value: false }],
    plainTextHex: utf8('4111111111111111').toString('hex'),
  },
  {
    name: 'unicode id, partition key and scope', ...base, scope: 'données/clients-ü', id: 'ドキュメント-😀', partitionKey: [{ type: 'string', value: 'ü' }, { type: 'undefined' }],
    selector: '/名前', marker: 2, plainTextHex: utf8('Ünïcödé ✓').toString('hex'),
  },
  {
    name: 'long selector, multi-block object value', ...base, id: 'deep', partitionKey: [{ type: 'string', value: 'p' }],
    selector: '/' + Array.from({ length: 30 }, (_, i) => 'level' + String(i).padStart(4, '0')).join('/'), marker: 7,
    plainTextHex: utf8(JSON.stringify({ street: '1 Main Street', city: 'Springfield', zip: '12345', notes: 'x'.repeat(200) })).toString('hex'),
  },
  { name: 'empty id, empty partition-key string, empty plaintext', ...base, id: '', partitionKey: [{ type: 'string', value: '' }], selector: '/e', marker: 2, plainTextHex: '' },
  { name: 'empty data encryption key id and scope', ...base, dataEncryptionKeyId: '', scope: '', id: 'a', partitionKey: [{ type: 'string', value: 'a' }], selector: '/a', marker: 2, plainTextHex: utf8('a').toString('hex') },
  { name: 'plaintext of exactly one block', ...base, id: 'a', partitionKey: [{ type: 'string', value: 'a' }], selector: '/a', marker: 2, plainTextHex: utf8('0123456789abcdef').toString('hex') },
];

// Document commitments (feature 'commit', docs/wire-format.md "Document commitment"): a chain over the document's
// cells in document order, then one MAC over D, the sorted listed selectors and the chain.
const sha256 = (bytes) => createHash('sha256').update(bytes).digest();

function commitment(c) {
  const digest = sha256(digestInput(c.document));
  const steps = [];
  let chain = Buffer.alloc(32); // h0: 32 zero bytes
  for (const cell of c.cells) {
    const bound = boundCell({ ...c.document, selector: cell.selector, marker: cell.marker, plainTextHex: cell.plainTextHex });
    const tag = Buffer.from(bound.cellHex, 'hex').subarray(1, 33);
    chain = sha256(Buffer.concat([chain, Buffer.from([cell.marker]), tag]));
    steps.push({ selector: cell.selector, marker: cell.marker, valueBase64: bound.valueBase64, tagHex: tag.toString('hex'), chainHex: chain.toString('hex') });
  }
  const sorted = [...c.listed].map(utf8).sort(Buffer.compare);
  const input = Buffer.concat([
    Buffer.from('EC-COMMIT-v1', 'ascii'),
    digest,
    u16(sorted.length),
    ...sorted.map(lp16),
    u32(c.cells.length),
    chain,
  ]);
  const mac = createHmac('sha256', keys.commitment).update(input).digest();
  return {
    name: c.name,
    document: c.document,
    listed: c.listed,
    sortedListed: sorted.map((b) => b.toString('utf8')),
    digestHex: digest.toString('hex'),
    cells: steps,
    commitmentInputHex: input.toString('hex'),
    commitmentHex: mac.toString('hex'),
    anchorBase64: Buffer.concat([Buffer.from([0xec, 0x01]), mac]).toString('base64'),
  };
}

const aliceDocument = { ...base, id: 'alice', partitionKey: [{ type: 'string', value: 'alice' }] };
const aliceCells = [
  { selector: '/ssn', marker: 2, plainTextHex: utf8('078-05-1120').toString('hex') },
  { selector: '/address/city', marker: 2, plainTextHex: utf8('Zürich').toString('hex') },
  { selector: '/cards/[]/number', marker: 2, plainTextHex: utf8('4111111111111111').toString('hex') },
  { selector: '/cards/[]/number', marker: 2, plainTextHex: utf8('5500000000000004').toString('hex') },
];
const aliceListed = ['/ssn', '/address/city', '/cards/[]/number'];
const commitments = [
  { name: 'four cells, three selectors', document: aliceDocument, listed: aliceListed, cells: aliceCells },
  { name: 'one card removed', document: aliceDocument, listed: aliceListed, cells: aliceCells.slice(0, 3) },
  { name: 'cards swapped', document: aliceDocument, listed: aliceListed, cells: [aliceCells[0], aliceCells[1], aliceCells[3], aliceCells[2]] },
  { name: 'same plaintexts, other document', document: { ...aliceDocument, id: 'bob', partitionKey: [{ type: 'string', value: 'bob' }] }, listed: aliceListed, cells: aliceCells },
  { name: 'no cells', document: aliceDocument, listed: [], cells: [] },
].map(commitment);

const output = {
  description: 'Bound cell (cell version 2) known-answer vectors; see docs/wire-format.md, "Bound cells". Generated by bound-cell-vectors.mjs.',
  rootKeyHex: rootKey.toString('hex'),
  keys: Object.fromEntries(Object.entries(keys).map(([k, v]) => [k + 'Hex', v.toString('hex')])),
  vectors: vectors.map(boundCell),
  commitments,
};

const path = join(dirname(fileURLToPath(import.meta.url)), 'bound-cell-vectors.json');
writeFileSync(path, JSON.stringify(output, null, 2) + '\n');
console.log(`wrote ${output.vectors.length} vectors and ${commitments.length} commitments to ${path}`);
