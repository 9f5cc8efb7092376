// Unit tests of the batch codec (RecordIO framing, HybridRow rows) with request bodies captured from the .NET
// SDK 3.64 (Gateway mode) talking to this server; see vectors/*.json for what each one is.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  decodeBatchRequest,
  decodeBatchResponse,
  encodeBatchRequest,
  encodeBatchResponse,
} from "../compat/batch/codec.mjs";
import { crc32 } from "../compat/batch/crc32.mjs";
import { BatchFormatError } from "../compat/batch/format-error.mjs";

const vector = (name) => {
  const { headers, body } = JSON.parse(readFileSync(new URL(`./vectors/${name}.json`, import.meta.url), "utf8"));
  return { headers, body: Buffer.from(body, "base64") };
};
const json = (buffer) => JSON.parse(buffer.toString("utf8"));

test("crc32 is the ISO 3309 CRC-32", () => {
  assert.equal(crc32(Buffer.from("123456789")), 0xcbf43926);
  assert.equal(crc32(Buffer.alloc(0)), 0);
});

test("a transactional batch: creates, then a replace with its id, no partition key per operation", () => {
  const { headers, body } = vector("batch-create-create-replace");
  assert.equal(headers["x-ms-cosmos-batch-atomic"], "True");

  const operations = decodeBatchRequest(body);

  assert.deepEqual(operations.map((o) => o.operationType), ["create", "create", "replace"]);
  assert.deepEqual(operations.map((o) => o.partitionKey), [undefined, undefined, undefined]);
  const [first, , replace] = operations;
  assert.equal(first.id, undefined);
  assert.equal(json(first.resourceBody).pk, "p0");
  assert.equal(replace.id, json(first.resourceBody).id);
  assert.equal(json(replace.resourceBody).score, 10);
});

test("patch operations carry their specification as the body and if-match as a sparse column", () => {
  const operations = decodeBatchRequest(vector("batch-patch-create-patch").body);

  assert.deepEqual(operations.map((o) => o.operationType), ["patch", "create", "patch"]);
  const [guarded, , plain] = operations;
  assert.match(guarded.ifMatch, /^[0-9a-f-]{36}$/);
  assert.equal(plain.ifMatch, undefined);
  assert.deepEqual(json(guarded.resourceBody).operations.map((o) => [o.op, o.path]), [["set", "/ssn"]]);
  assert.deepEqual(json(plain.resourceBody).operations.map((o) => [o.op, o.path]), [["set", "/ssn"], ["set", "/name"]]);
});

test("reads, upserts and replaces decode with their ids", () => {
  const operations = decodeBatchRequest(vector("batch-create-replace-upsert-read").body);

  assert.deepEqual(operations.map((o) => o.operationType), ["create", "create", "replace", "upsert", "read"]);
  const read = operations[4];
  assert.equal(read.resourceBody, undefined);
  assert.equal(read.id, json(operations[1].resourceBody).id);
});

test("bulk: every operation names its own partition key", () => {
  const { headers, body } = vector("bulk-50-creates");
  assert.equal(headers["x-ms-cosmos-batch-continue-on-error"], "True");

  const operations = decodeBatchRequest(body);

  assert.equal(operations.length, 50);
  for (const operation of operations) {
    assert.equal(operation.operationType, "create");
    assert.deepEqual(JSON.parse(operation.partitionKey), [json(operation.resourceBody).pk]);
  }
});

test("re-encoding what was decoded gives the SDK's bytes back", () => {
  for (const name of ["batch-create-create-replace", "batch-patch-create-patch", "batch-create-replace-upsert-read", "bulk-50-creates"]) {
    const { body } = vector(name);
    assert.deepEqual(encodeBatchRequest(decodeBatchRequest(body)), body, name);
  }
});

test("every sparse request column round-trips", () => {
  const operation = {
    operationType: "delete",
    id: "d1",
    partitionKey: '["p"]',
    indexingDirective: "Exclude",
    ifNoneMatch: '"etag"',
    timeToLiveInSeconds: -1,
    minimalReturnPreference: true,
  };
  assert.deepEqual(decodeBatchRequest(encodeBatchRequest([operation])), [{ ...operation, resourceType: 2 }]);
});

test("results: status, etag, body, and a 429's retry-after and charge", () => {
  const results = [
    { statusCode: 201, eTag: '"e1"', resourceBody: Buffer.from('{"id":"a"}'), requestCharge: 1 },
    { statusCode: 429, subStatusCode: 3200, retryAfterMilliseconds: 250, requestCharge: 0 },
    { statusCode: 424 },
  ];

  const body = encodeBatchResponse(results);

  // What the SDK checks first: the HybridRow version byte.
  assert.equal(body[0], 0x81);
  assert.deepEqual(decodeBatchResponse(body), results);
});

test("a result row has the SDK's layout: presence bits, fixed status codes, variable etag and body, sparse tokens", () => {
  const body = encodeBatchResponse([{ statusCode: 200, eTag: "e", retryAfterMilliseconds: 1 }]);
  const row = body.subarray(10 + 13);

  assert.deepEqual([...row], [
    0x81, 0x71, 0x54, 0xe1, 0x7f, // version, schema id 2145473649
    0b0101, // statusCode and eTag present
    200, 0, 0, 0, 0, 0, 0, 0, // statusCode, subStatusCode (absent, zero)
    1, 0x65, // eTag
    11, 5, 1, 0, 0, 0, // uint32 retryAfterMilliseconds (path token 5)
  ]);
});

test("malformed bodies are refused with a reason, never half decoded", () => {
  const { body } = vector("batch-create-create-replace");
  const corrupt = Buffer.from(body);
  corrupt[corrupt.length - 3] ^= 0xff;

  assert.throws(() => decodeBatchRequest(corrupt), (e) => e instanceof BatchFormatError && /CRC-32/.test(e.message));
  assert.throws(() => decodeBatchRequest(body.subarray(0, body.length - 5)), BatchFormatError);
  assert.throws(() => decodeBatchRequest(Buffer.from('[{"operationType":"Create"}]')), BatchFormatError);
  assert.throws(() => decodeBatchRequest(body.subarray(10)), /before the first segment/);
});
