// Transactional batch and bulk from the .NET SDK: `POST .../docs` with `x-ms-cosmos-is-batch-request: True`
// and a binary body (RecordIO of HybridRow rows, see codec.mjs), which the server as published parses as JSON.
// - Transactional batch (`x-ms-cosmos-batch-atomic: True`, the partition key header): all or nothing. The
//   first failing operation gets its status and error; every other operation 424 and nothing is applied.
// - Bulk (atomic False, `x-ms-cosmos-batch-continue-on-error: True`): independent operations, each with its
//   own partition key. Without continue-on-error, operations after a failure get 424 and are not run.
// 200 when every operation succeeded, else 207, with one result per operation in order. More than 100
// operations: 400; a body over the SDK's own batch size limit: 413; a transactional batch whose answer would
// exceed the response size limit: 413, undone. A read in a batch honours If-Match (412) and If-None-Match (304,
// which does not fail the batch), and a batch with a read checks the session token (404/1002 when ahead).
import { randomUUID } from "node:crypto";
import { snapshotDocuments } from "../documents-snapshot.mjs";
import { badRequest, header, isTrue, notFound, send } from "../respond.mjs";
import { refuseUnavailableSession, sessionToken } from "../session.mjs";
import { decodeBatchRequest, encodeBatchResponse } from "./codec.mjs";
import { BatchFormatError } from "./format-error.mjs";
import { executeOperation } from "./operations.mjs";

export const MAX_OPERATIONS = 100;
// The largest body the SDK builds for one batch request (it splits bulk work to stay under it).
export const MAX_BODY_BYTES = 2_202_010;
// The largest answer Cosmos DB sends for one request (4 MB).
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

const FAILED_DEPENDENCY = 424;
const isSuccess = (statusCode) => statusCode >= 200 && statusCode < 400;

/**
 * The .NET SDK's binary batch. The JavaScript SDK sends JSON batches with the same flag and a JSON content
 * type; those stay with the server, which understands them.
 */
export function isBinaryBatchRequest(req) {
  return req.method === "POST"
    && isTrue(req, "x-ms-cosmos-is-batch-request")
    && !/json/i.test(header(req, "content-type") ?? "");
}

/** The whole body, or undefined (the rest is drained) when it is longer than `limit`. */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let length = 0;
    req.on("data", (chunk) => {
      length += chunk.length;
      if (length <= limit) chunks.push(chunk);
    });
    req.on("end", () => resolve(length <= limit ? Buffer.concat(chunks) : undefined));
    req.on("error", reject);
  });
}

// Every operation that ran is charged, the one that failed included (Cosmos DB charges a failed batch for
// the work it did); operations that never ran (424) are not.
function toResult({ statusCode, body }, operation) {
  const result = { statusCode, requestCharge: 1 };
  if (body && typeof body === "object" && body._etag) result.eTag = body._etag;
  const minimal = operation.minimalReturnPreference && operation.operationType !== "read";
  const hasBody = body !== undefined && statusCode !== 204 && statusCode !== 304 && Object.keys(body).length > 0;
  if (hasBody && !(minimal && isSuccess(statusCode))) result.resourceBody = Buffer.from(JSON.stringify(body));
  return result;
}

function runAtomic(collection, operations, partitionKey) {
  const restore = snapshotDocuments(collection.documents);
  const results = [];
  for (const operation of operations) {
    const result = toResult(executeOperation(collection, operation, partitionKey), operation);
    if (!isSuccess(result.statusCode)) {
      restore();
      return { results: operations.map((_, i) => (i === results.length ? result : { statusCode: FAILED_DEPENDENCY, requestCharge: 0 })) };
    }
    results.push(result);
  }
  return { results, restore };
}

function runIndependent(collection, operations, fallbackPartitionKey, continueOnError) {
  const results = [];
  let failed = false;
  for (const operation of operations) {
    if (failed && !continueOnError) {
      results.push({ statusCode: FAILED_DEPENDENCY, requestCharge: 0 });
      continue;
    }
    const result = toResult(executeOperation(collection, operation, operation.partitionKey ?? fallbackPartitionKey), operation);
    failed ||= !isSuccess(result.statusCode);
    results.push(result);
  }
  return results;
}

export async function batch(req, res, collection) {
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === undefined) {
    return send(res, 413, { code: "RequestEntityTooLarge", message: `The batch request body is larger than ${MAX_BODY_BYTES} bytes.` });
  }
  let operations;
  try {
    operations = decodeBatchRequest(body);
  } catch (err) {
    if (err instanceof BatchFormatError) return badRequest(res, `invalid batch request body: ${err.message}`);
    throw err;
  }
  if (operations.length === 0) return badRequest(res, "The batch request has no operations.");
  if (operations.length > MAX_OPERATIONS) {
    return badRequest(res, `The batch request has ${operations.length} operations; at most ${MAX_OPERATIONS} are allowed.`);
  }
  if (!collection.read()) return notFound(res);
  // A batch that reads checks the session token as a point read does (writes alone are never behind).
  if (operations.some((o) => o.operationType === "read") && refuseUnavailableSession(req, res, req.partitionScope)) return undefined;

  const atomic = isTrue(req, "x-ms-cosmos-batch-atomic");
  const partitionKey = header(req, "x-ms-documentdb-partitionkey");
  if (atomic && partitionKey === undefined) return badRequest(res, "A transactional batch needs the partition key header.");
  const { results, restore } = atomic
    ? runAtomic(collection, operations, partitionKey)
    : { results: runIndependent(collection, operations, partitionKey, isTrue(req, "x-ms-cosmos-batch-continue-on-error")) };
  const encoded = encodeBatchResponse(results);
  if (restore && encoded.length > MAX_RESPONSE_BYTES) {
    // All or nothing: an answer too large to send undoes the batch, as Cosmos DB refuses it.
    restore();
    return send(res, 413, { code: "RequestEntityTooLarge", message: `The transactional batch response would be ${encoded.length} bytes; at most ${MAX_RESPONSE_BYTES} are allowed.` });
  }

  const statusCode = results.every((r) => isSuccess(r.statusCode)) ? 200 : 207;
  console.log(`${new Date().toISOString()} [compat:batch] ${atomic ? "atomic" : "bulk"} ${req.url} ${statusCode}: ${results.map((r) => r.statusCode).join(",")}`);
  res.statusCode = statusCode;
  res.setHeader("content-type", "application/octet-stream");
  res.setHeader("x-ms-activity-id", randomUUID());
  res.setHeader("x-ms-request-charge", String(results.reduce((sum, r) => sum + r.requestCharge, 0)));
  const token = sessionToken(req.partitionScope);
  if (token !== undefined) res.setHeader("x-ms-session-token", token);
  res.end(encoded);
}
