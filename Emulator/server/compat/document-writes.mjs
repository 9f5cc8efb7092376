// Creates, upserts and replaces of single documents, with the checks Cosmos DB makes and the server skips:
// - the container (and its database) must exist: 404, where the server's handler fails with a 500;
// - the body must be a JSON object with a string id: 400 (an empty or unparsable body was a 500);
// - the document's partition key value must be the one in the partition key header: 400 (the server
//   stored it wherever the body said);
// - a replace of an id that does not exist is 404 before the body is looked at (an empty body was a 500);
// - a replace whose body carries another id renames the document (same resource id, one write), 409 when
//   the new id is taken in that partition (the server answered 404);
// - the item limits (limits.mjs): over 2 MB is 413, an id too long or with '/', '\', '?', '#' or a partition
//   key value too long is 400;
// - `Prefer: return=minimal` (the SDK's EnableContentResponseOnWrite = false) answers without a body.
// The writes themselves are the server's own operations, so every other rule (unique keys, etags) is theirs.
import { randomUUID } from "node:crypto";
import { createOperation, getPartitionKeyHeader, parsePartitionKey, replaceOperation, upsertOperation } from "./internals.mjs";
import { itemLimitError, MAX_ITEM_BYTES, tooLarge } from "./limits.mjs";
import { partitionMatcher, partitionValueOf } from "./partition.mjs";
import { badRequest, header, isTrue, notFound, send } from "./respond.mjs";
import { asOneWrite } from "./write-sequence.mjs";

const PARTITION_KEY_MISMATCH = "PartitionKey extracted from document doesn't match the one specified in the header.";

/** POST .../docs that is neither a query nor a batch: a create, or an upsert (`x-ms-documentdb-is-upsert`). */
export function isDocumentCreate(req) {
  return req.method === "POST"
    && !isTrue(req, "x-ms-documentdb-isquery")
    && !isTrue(req, "x-ms-cosmos-is-batch-request")
    && !isTrue(req, "x-ms-cosmos-is-query-plan-request")
    && !/^application\/query\+json/i.test(header(req, "content-type") ?? "");
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The parsed document, or a string saying why it is not one. */
function parseDocument(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return "The request body is not a JSON document.";
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return "The request body must be a JSON object.";
  if (typeof doc.id !== "string" || doc.id === "") {
    return "The input content is invalid because the required properties - 'id; ' - are missing.";
  }
  return doc;
}

const minimal = (req) => /return=minimal/i.test(header(req, "prefer") ?? "");

function answer(req, res, { statusCode, body }) {
  if (statusCode >= 400) return send(res, statusCode, body?.message ? body : { code: "BadRequest", message: "", ...body });
  // Without content, the etag still tells the client which version it wrote.
  return minimal(req) ? send(res, statusCode, undefined, { etag: body._etag }) : send(res, statusCode, body);
}

/** The partition key header, or an answer already sent (400). */
function partitionKeyOf(req, res) {
  const partitionKey = getPartitionKeyHeader(req);
  if (partitionKey === undefined || partitionKey === "") {
    badRequest(res, "The partition key header (x-ms-documentdb-partitionkey) is missing.");
    return undefined;
  }
  return partitionKey;
}

// The item limits (limits.mjs): size, id, partition key value length. Returns true when it answered.
function refuseOverLimit(res, collection, doc, text) {
  const refusal = itemLimitError(doc, Buffer.byteLength(text, "utf8"), collection.read(), partitionValueOf(collection.documents, doc));
  if (refusal) send(res, refusal.statusCode, refusal.body);
  return refusal !== undefined;
}

// A body over the item size limit is refused before it is parsed, as Cosmos DB refuses the request.
function refuseOversizedBody(res, text) {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes <= MAX_ITEM_BYTES) return false;
  const { statusCode, body } = tooLarge(bytes);
  send(res, statusCode, body);
  return true;
}

function inPartition(res, collection, partitionKey, doc) {
  let matches;
  try {
    matches = partitionMatcher(partitionKey, collection.documents)(doc);
  } catch {
    badRequest(res, "invalid x-ms-documentdb-partitionkey header");
    return false;
  }
  if (!matches) badRequest(res, PARTITION_KEY_MISMATCH);
  return matches;
}

export async function createOrUpsert(req, res, collection) {
  const text = await readBody(req);
  if (!collection.read()) return notFound(res);
  if (refuseOversizedBody(res, text)) return undefined;
  const doc = parseDocument(text);
  if (typeof doc === "string") return badRequest(res, doc);
  const partitionKey = partitionKeyOf(req, res);
  if (partitionKey === undefined || !inPartition(res, collection, partitionKey, doc)) return undefined;
  if (refuseOverLimit(res, collection, doc, text)) return undefined;
  const input = { partitionKey, resourceBody: doc, ifMatch: header(req, "if-match") };
  const result = isTrue(req, "x-ms-documentdb-is-upsert") ? upsertOperation(collection, input) : createOperation(collection, input);
  return answer(req, res, result);
}

export async function replace(req, res, collection, docId) {
  const text = await readBody(req);
  if (!collection.read()) return notFound(res);
  const partitionKey = partitionKeyOf(req, res);
  if (partitionKey === undefined) return undefined;
  let partition;
  try {
    partition = parsePartitionKey(partitionKey, docId);
  } catch {
    return badRequest(res, "invalid x-ms-documentdb-partitionkey header");
  }
  const current = collection.document(docId, partition).read();
  if (!current) return notFound(res);
  if (refuseOversizedBody(res, text)) return undefined;
  const doc = parseDocument(text);
  if (typeof doc === "string") return badRequest(res, doc);
  if (!inPartition(res, collection, partitionKey, doc)) return undefined;
  if (refuseOverLimit(res, collection, doc, text)) return undefined;
  const ifMatch = header(req, "if-match");
  if (doc.id === docId) return answer(req, res, replaceOperation(collection, { partitionKey, ifMatch, resourceBody: doc }));
  return answer(req, res, rename(collection, current, doc, partition, ifMatch));
}

const PRECONDITION_FAILED = { statusCode: 412, body: { code: "PreconditionFailed", message: "Operation cannot be performed because one of the specified precondition is not met." } };

// A replace that changes the id: the stored document gets the new id and body under its resource id.
function rename(collection, current, doc, partition, ifMatch) {
  const { documents } = collection;
  if (ifMatch && ifMatch !== current._etag) return PRECONDITION_FAILED;
  const taken = documents._uniqueKeyPaths.some((keyPath) => {
    const value = keyPath.slice(1).split("/").reduce((node, name) => node?.[name], doc);
    const holder = documents._item(keyPath, value, partition).read();
    return holder !== undefined && holder._rid !== current._rid;
  });
  if (taken) {
    return { statusCode: 409, body: { code: "Conflict", message: "Entity with the specified id already exists in the system." } };
  }
  const stored = asOneWrite(documents, () => {
    documents.delete(current.id, partition);
    return documents._set({ ...doc, _etag: randomUUID(), _rid: current._rid, _self: current._self, _ts: Math.floor(Date.now() / 1000) });
  });
  return { statusCode: 200, body: stored };
}
