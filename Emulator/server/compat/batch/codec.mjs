// The batch wire format of the .NET SDK (transactional batch and bulk): a RecordIO stream of HybridRow rows,
// "BatchOperation" rows in the request and one "BatchResult" row per operation, in order, in the response.
// The schemas (names, ids, columns in order) are those the SDK declares in its HybridRowBatchSchemas.json.
import { BatchFormatError } from "./format-error.mjs";
import { compileLayout, readRow, writeRow } from "./hybrid-row.mjs";
import { readRecords, writeRecords } from "./record-io.mjs";

const BATCH_OPERATION = compileLayout({
  name: "BatchOperation",
  schemaId: 2145473648,
  columns: [
    { path: "operationType", type: "int32", storage: "fixed" },
    { path: "resourceType", type: "int32", storage: "fixed" },
    { path: "partitionKey", type: "utf8", storage: "variable" },
    { path: "effectivePartitionKey", type: "binary", storage: "variable" },
    { path: "id", type: "utf8", storage: "variable" },
    { path: "binaryId", type: "binary", storage: "variable" },
    { path: "resourceBody", type: "binary", storage: "variable" },
    { path: "indexingDirective", type: "utf8", storage: "sparse" },
    { path: "ifMatch", type: "utf8", storage: "sparse" },
    { path: "ifNoneMatch", type: "utf8", storage: "sparse" },
    { path: "timeToLiveInSeconds", type: "int32", storage: "sparse" },
    { path: "minimalReturnPreference", type: "bool", storage: "sparse" },
  ],
});

const BATCH_RESULT = compileLayout({
  name: "BatchResult",
  schemaId: 2145473649,
  columns: [
    { path: "statusCode", type: "int32", storage: "fixed" },
    { path: "subStatusCode", type: "int32", storage: "fixed" },
    { path: "eTag", type: "utf8", storage: "variable" },
    { path: "resourceBody", type: "binary", storage: "variable" },
    { path: "retryAfterMilliseconds", type: "uint32", storage: "sparse" },
    { path: "requestCharge", type: "float64", storage: "sparse" },
  ],
});

// Operation types as the SDK numbers them (its OperationType enum); the others cannot appear in a batch.
const OPERATION_TYPES = new Map([[0, "create"], [1, "patch"], [2, "read"], [4, "delete"], [5, "replace"], [20, "upsert"]]);
const OPERATION_CODES = new Map([...OPERATION_TYPES].map(([code, name]) => [name, code]));
const DOCUMENT_RESOURCE_TYPE = 2;

/**
 * @typedef {object} BatchOperation
 * @property {string} operationType create | patch | read | delete | replace | upsert
 * @property {string} [partitionKey] JSON array, as in the partition key header (bulk only)
 * @property {string} [id]
 * @property {Buffer} [resourceBody] the document (create, replace, upsert) or the patch specification
 * @property {string} [ifMatch]
 * @property {string} [ifNoneMatch]
 * @property {string} [indexingDirective]
 * @property {number} [timeToLiveInSeconds]
 * @property {boolean} [minimalReturnPreference] true: leave the body out of a successful write's result
 */

/** @param {Buffer} body @returns {BatchOperation[]} */
export function decodeBatchRequest(body) {
  return readRecords(body).map((record, index) => {
    const row = readRow(record, BATCH_OPERATION);
    const operationType = OPERATION_TYPES.get(row.operationType);
    if (operationType === undefined) {
      throw new BatchFormatError(`operation ${index}: operation type ${row.operationType} is not supported in a batch`);
    }
    if (row.resourceType !== undefined && row.resourceType !== DOCUMENT_RESOURCE_TYPE) {
      throw new BatchFormatError(`operation ${index}: resource type ${row.resourceType} is not a document`);
    }
    return { ...row, operationType };
  });
}

/**
 * @typedef {object} BatchResult
 * @property {number} statusCode
 * @property {number} [subStatusCode]
 * @property {string} [eTag]
 * @property {Buffer|string} [resourceBody]
 * @property {number} [retryAfterMilliseconds] with 429: when the SDK may retry the operation
 * @property {number} [requestCharge]
 */

/** @param {BatchResult[]} results @returns {Buffer} */
export function encodeBatchResponse(results) {
  return writeRecords(results.map((result) => writeRow(BATCH_RESULT, result)));
}

// The inverse directions, for tests and diagnostics: they make the codec checkable round trip.

/** @param {BatchOperation[]} operations @returns {Buffer} */
export function encodeBatchRequest(operations) {
  return writeRecords(operations.map((operation) => writeRow(BATCH_OPERATION, {
    ...operation,
    operationType: OPERATION_CODES.get(operation.operationType),
    resourceType: DOCUMENT_RESOURCE_TYPE,
  })));
}

/** @param {Buffer} body @returns {BatchResult[]} */
export function decodeBatchResponse(body) {
  return readRecords(body).map((record) => readRow(record, BATCH_RESULT));
}
