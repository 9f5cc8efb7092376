// Puts the compatibility handlers in front of the server's own request listener. Requests they do not
// claim go to the server unchanged; the ones they claim never reach it.
import { collectionOf, currentAccount } from "./account.mjs";
import { refuseBelowDocument, refuseMismatchedSignature } from "./authorization.mjs";
import { batch, isBinaryBatchRequest } from "./batch/handler.mjs";
import { changeFeed, isChangeFeedRequest, isUnservedChangeFeedRequest, refuseChangeFeedMode } from "./change-feed.mjs";
import { createOrUpsert, isDocumentCreate, replace } from "./document-writes.mjs";
import { fillEmptyErrorMessages } from "./error-messages.mjs";
import { route } from "./internals.mjs";
import { configuredLatencyMs } from "./latency.mjs";
import { isPartitionScopedQuery, isPartitionScopedReadFeed, partitionScopedQuery, partitionScopedReadFeed } from "./partition-query.mjs";
import { patch } from "./patch.mjs";
import { PARTITION_KEY_DEFINITION_MISMATCH } from "./partition.mjs";
import { isPartitionKeyDelete, partitionKeyDelete } from "./partition-key-delete.mjs";
import { pointRead } from "./point-read.mjs";
import { isQueryPlanRequest, queryPlan } from "./query-plan.mjs";
import { claimOffers, sharesDatabaseThroughput } from "./offers.mjs";
import { createContainer, isContainerCreate } from "./containers.mjs";
import { logRequest, logUnknownRoute } from "./request-log.mjs";
import { resourceHeaders } from "./resource-usage.mjs";
import { header, isTrue, send } from "./respond.mjs";
import { addDocumentHeaders, refuseOtherContainer, refuseUnavailableSession } from "./session.mjs";
import { isPartitionKeyRangesRead, partitionKeyRanges } from "./partitions/pkranges.mjs";
import { requestScope, ScopeError } from "./partitions/scope.mjs";
import { claimControl } from "./partitions/control.mjs";
import { claimThroughputControl, refuseOverBudget } from "./throughput.mjs";

const DOCUMENTS_PATH = /^\/dbs\/([^/]+)\/colls\/([^/]+)\/docs(?:\/([^/]+))?$/;
const BELOW_DOCUMENT_PATH = /^\/dbs\/[^/]+\/colls\/[^/]+\/docs\/[^/]+\/.+$/;
const COLLECTION_PATH = /^\/dbs\/([^/]+)\/colls\/([^/]+)$/;

// The server's path normalisation: the JS SDK's leading double slash and trailing slashes are ignored.
function normalisedPath(url) {
  let path = new URL(url, "https://localhost").pathname.replace(/^\/\//, "/");
  while (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

function documentsPath(path) {
  const match = DOCUMENTS_PATH.exec(path);
  return match && { dbId: decodeURIComponent(match[1]), collId: decodeURIComponent(match[2]), docId: match[3] && decodeURIComponent(match[3]) };
}

// Reads are where Cosmos DB checks the session token (writes go to the primary, which is never behind).
function isRead(req, path) {
  if (req.method === "GET") return true;
  if (req.method !== "POST" || path.docId !== undefined || isTrue(req, "x-ms-cosmos-is-query-plan-request")) return false;
  return isTrue(req, "x-ms-documentdb-isquery") || /^application\/query\+json/i.test(header(req, "content-type") ?? "");
}

/**
 * Checks Cosmos DB makes on every request about a container's documents before it runs: the request's scope
 * (partitions/scope.mjs: a range that split is 410/1002, and the handlers read what the request addresses
 * from `req.partitionScope`); the answer carries the session headers; a request meant for another container
 * of that name is refused (400/1024); a read whose session token is ahead of its range is refused (400
 * malformed, 404/1002 ahead).
 */
function sessionCheck(req, path) {
  const collection = collectionOf(path.dbId, path.collId);
  return (res) => {
    const container = collection.read();
    if (!container) return false;
    if (refuseMismatchedSignature(req, res, path)) return true;
    try {
      req.partitionScope = requestScope(req, collection.documents);
    } catch (err) {
      if (!(err instanceof ScopeError)) throw err;
      const subStatus = err.subStatus === undefined ? {} : { "x-ms-substatus": String(err.subStatus) };
      send(res, err.statusCode, { code: err.code, message: err.message }, subStatus);
      return true;
    }
    // A hierarchical key's prefix names many logical partitions: only a query, read feed or change feed may
    // address it; a point operation, a write or a batch needs the full key (Cosmos DB: 400).
    if (req.partitionScope.prefix && (path.docId !== undefined || !isRead(req, path))) {
      send(res, 400, { code: "BadRequest", message: `${PARTITION_KEY_DEFINITION_MISMATCH} A prefix of the hierarchical partition key addresses queries and feeds only.` });
      return true;
    }
    // Point reads report the container's quota and usage, as Cosmos DB's document reads do.
    const usage = req.method === "GET" && path.docId !== undefined ? resourceHeaders(collection) : {};
    addDocumentHeaders(res, collection, `dbs/${path.dbId}/colls/${path.collId}`, req.partitionScope, { ...queryMetrics(req, path), ...usage });
    return refuseOtherContainer(req, res, container)
      || (isRead(req, path) && (refuseBadQueryOptions(req, res) || refuseUnavailableSession(req, res, req.partitionScope)));
  };
}

// Asked for (PopulateQueryMetrics), a query answer carries its metrics, as the server's own query handler
// does; it measures nothing, so every time is zero (the counts are not known here either: 0).
const ZERO_METRICS = "totalExecutionTimeInMs=0.00;queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;" +
  "queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs=0.00;indexLookupTimeInMs=0.00;" +
  "documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount=0;" +
  "retrievedDocumentSize=0;outputDocumentCount=0;outputDocumentSize=0;writeOutputTimeInMs=0.00;indexUtilizationRatio=0.00";

function queryMetrics(req, path) {
  const asked = isTrue(req, "x-ms-documentdb-populatequerymetrics") && req.method === "POST" && isRead(req, path);
  return asked ? { "x-ms-documentdb-query-metrics": ZERO_METRICS } : {};
}

// ResponseContinuationTokenLimitInKb: Cosmos DB accepts 1 KB or more; 0 would allow no continuation at all.
function refuseBadQueryOptions(req, res) {
  const limit = header(req, "x-ms-documentdb-responsecontinuationtokenlimitinkb");
  if (limit === undefined || /^[1-9]\d*$/.test(limit)) return false;
  send(res, 400, { code: "BadRequest", message: `ResponseContinuationTokenLimitInKb must be at least 1 (KB), not ${limit}.` });
  return true;
}

// Deleting a container: the answer names the deleted collection's resource id (owner id), from which the
// SDK drops the session tokens it keeps for it, so a container recreated under the same name starts afresh.
// Reading one in a database with shared throughput: the answer says it shares it (x-ms-share-throughput);
// every read carries the container's resource quota and usage.
function containerHeaders(req, normalised) {
  const match = (req.method === "DELETE" || req.method === "GET") && COLLECTION_PATH.exec(normalised);
  if (!match) return undefined;
  const dbId = decodeURIComponent(match[1]);
  const container = collectionOf(dbId, decodeURIComponent(match[2])).read();
  if (!container) return undefined;
  if (req.method === "DELETE") {
    return (res) => {
      res.setHeader("x-ms-content-path", container._rid);
      return false;
    };
  }
  const database = currentAccount().database(dbId).read();
  const collection = collectionOf(dbId, decodeURIComponent(match[2]));
  return (res) => {
    if (database && sharesDatabaseThroughput(database, container)) res.setHeader("x-ms-share-throughput", "true");
    for (const [name, value] of Object.entries(resourceHeaders(collection))) res.setHeader(name, value);
    return false;
  };
}

// A change feed request that carries a query (the SDK's change feed with a query definition, still internal in
// SDK 3.64: its A-IM request with a `{"query": ...}` body): Cosmos DB answers it as a change feed (ETag,
// continuation, 304) with the query applied. This endpoint cannot filter its change feed pages by a query, so it
// refuses the request clearly, where it would otherwise have ignored the body (GET) or answered a plain query
// without an ETag (POST), which the SDK cannot continue from.
function isChangeFeedQuery(req) {
  if (!header(req, "a-im")) return false;
  const hasBody = Number(header(req, "content-length") ?? 0) > 0 || header(req, "transfer-encoding") !== undefined;
  return req.method === "POST" || hasBody || isTrue(req, "x-ms-documentdb-isquery")
    || /^application\/query\+json/i.test(header(req, "content-type") ?? "");
}

function refuseChangeFeedQuery(req, res) {
  req.resume();
  send(res, 400, { code: "BadRequest", message: "A change feed with a query is not served by this endpoint: read the change feed without a query and filter the changes in the client." });
}

/** The compatibility handler for a request, or undefined to let the server answer it. */
function claim(req, normalised) {
  if (isContainerCreate(req, normalised)) return ["container-create", (res) => createContainer(req, res)];
  const offers = claimOffers(req, normalised);
  if (offers) return offers;
  const control = claimControl(req, normalised) ?? claimThroughputControl(req, normalised);
  if (control) return control;
  if (isPartitionKeyRangesRead(req, normalised)) return ["pkranges", (res) => partitionKeyRanges(req, res, normalised)];
  const keyDelete = isPartitionKeyDelete(req, normalised);
  if (keyDelete) return ["partition-key-delete", (res) => partitionKeyDelete(req, res, keyDelete)];
  const path = documentsPath(normalised);
  if (!path) {
    return BELOW_DOCUMENT_PATH.test(normalised) ? ["signature", (res) => refuseBelowDocument(req, res, normalised) || (req.resume(), send(res, 400, { code: "BadRequest", message: "no route" }))] : undefined;
  }
  const collection = () => collectionOf(path.dbId, path.collId);
  if (path.docId === undefined) {
    if (isChangeFeedQuery(req)) return ["change-feed", (res) => refuseChangeFeedQuery(req, res)];
    if (isBinaryBatchRequest(req)) return ["batch", (res) => batch(req, res, collection())];
    if (isQueryPlanRequest(req)) return ["query-plan", (res) => queryPlan(req, res, path.dbId, path.collId)];
    if (isPartitionScopedQuery(req)) return ["partition-query", (res) => partitionScopedQuery(req, res, collection())];
    if (isChangeFeedRequest(req)) return ["change-feed", (res) => changeFeed(req, res, collection())];
    if (isUnservedChangeFeedRequest(req)) return ["change-feed", (res) => refuseChangeFeedMode(req, res)];
    if (isPartitionScopedReadFeed(req)) return ["partition-read-feed", (res) => partitionScopedReadFeed(req, res, collection())];
    if (isDocumentCreate(req)) return ["document-write", (res) => createOrUpsert(req, res, collection())];
    return undefined;
  }
  if (req.method === "GET") return ["point-read", (res) => pointRead(req, res, collection(), path.docId)];
  if (req.method === "PATCH") return ["patch", (res) => patch(req, res, collection(), path.docId)];
  if (req.method === "PUT") return ["document-write", (res) => replace(req, res, collection(), path.docId)];
  return undefined;
}

export function installCompatibility(server) {
  const serverListeners = server.listeners("request");
  if (serverListeners.length !== 1) {
    throw new Error(`expected the server's single request listener, found ${serverListeners.length}`);
  }
  const [serverListener] = serverListeners;
  server.removeAllListeners("request");
  // Read once, when the server starts: a malformed value stops the start with its message.
  const latencyMs = configuredLatencyMs();
  server.on("request", (req, res) => {
    // A timer, not a wait: the thread serves other requests while this one is held back (latency.mjs).
    if (latencyMs > 0 && isDocumentsRequest(req)) setTimeout(() => handleRequest(req, res), latencyMs);
    else handleRequest(req, res);
  });

  function handleRequest(req, res) {
    let claimed;
    let known;
    let before;
    let documents;
    try {
      const normalised = normalisedPath(req.url);
      claimed = claim(req, normalised);
      known = claimed !== undefined || route(req) !== undefined;
      documents = documentsPath(normalised);
      before = documents ? sessionCheck(req, documents) : containerHeaders(req, normalised);
    } catch (err) {
      // A malformed URL (bad percent-encoding) throws in routing, in the server's router too, where the
      // exception would end the process: answer 400 instead.
      logRequest(req, res, "rejected");
      send(res, 400, { code: "BadRequest", message: err.message });
      return;
    }
    logRequest(req, res, claimed?.[0]);
    fillEmptyErrorMessages(res);
    if (before?.(res) || (documents && refuseOverBudget(req, res, documents.dbId, documents.collId))) {
      req.resume(); // answered (session not available, over budget): drain the body so the connection can be reused
      return;
    }
    if (!claimed) {
      if (!known) logUnknownRoute(req);
      serverListener(req, res);
      return;
    }
    const [name, handle] = claimed;
    Promise.resolve()
      .then(() => handle(res))
      .catch((err) => {
        console.error(`compat:${name} failed for ${req.method} ${req.url}:`, err);
        if (!res.headersSent) {
          send(res, 500, { code: "InternalServerError", message: `compat:${name}: ${err.message}` });
        } else {
          res.destroy(err);
        }
      });
  }
}

// A request about a container's documents (what EMULATOR_LATENCY_MS delays). A URL that does not parse is not
// one: it is answered at once (400) by the handler.
function isDocumentsRequest(req) {
  try {
    return documentsPath(normalisedPath(req.url)) !== null;
  } catch {
    return false;
  }
}
