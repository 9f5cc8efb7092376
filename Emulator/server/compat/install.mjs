// Puts the compatibility handlers in front of the server's own request listener. Requests they do not
// claim go to the server unchanged; the ones they claim never reach it.
import { collectionOf } from "./account.mjs";
import { batch, isBinaryBatchRequest } from "./batch/handler.mjs";
import { changeFeed, isChangeFeedRequest } from "./change-feed.mjs";
import { route } from "./internals.mjs";
import { isPartitionScopedQuery, partitionScopedQuery } from "./partition-query.mjs";
import { patch } from "./patch.mjs";
import { pointRead } from "./point-read.mjs";
import { isQueryPlanRequest, queryPlan } from "./query-plan.mjs";
import { claimOffers } from "./offers.mjs";
import { logRequest, logUnknownRoute } from "./request-log.mjs";
import { send } from "./respond.mjs";

const DOCUMENTS_PATH = /^\/dbs\/([^/]+)\/colls\/([^/]+)\/docs(?:\/([^/]+))?$/;

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

/** The compatibility handler for a request, or undefined to let the server answer it. */
function claim(req) {
  const normalised = normalisedPath(req.url);
  const offers = claimOffers(req, normalised);
  if (offers) return offers;
  const path = documentsPath(normalised);
  if (!path) return undefined;
  const collection = () => collectionOf(path.dbId, path.collId);
  if (path.docId === undefined) {
    if (isBinaryBatchRequest(req)) return ["batch", (res) => batch(req, res, collection())];
    if (isQueryPlanRequest(req)) return ["query-plan", (res) => queryPlan(req, res)];
    if (isPartitionScopedQuery(req)) return ["partition-query", (res) => partitionScopedQuery(req, res, collection())];
    if (isChangeFeedRequest(req)) return ["change-feed", (res) => changeFeed(req, res, collection())];
    return undefined;
  }
  if (req.method === "GET") return ["point-read", (res) => pointRead(req, res, collection(), path.docId)];
  if (req.method === "PATCH") return ["patch", (res) => patch(req, res, collection(), path.docId)];
  return undefined;
}

export function installCompatibility(server) {
  const serverListeners = server.listeners("request");
  if (serverListeners.length !== 1) {
    throw new Error(`expected the server's single request listener, found ${serverListeners.length}`);
  }
  const [serverListener] = serverListeners;
  server.removeAllListeners("request");
  server.on("request", (req, res) => {
    let claimed;
    let known;
    try {
      claimed = claim(req);
      known = claimed !== undefined || route(req) !== undefined;
    } catch (err) {
      // A malformed URL (bad percent-encoding) throws in routing, in the server's router too, where the
      // exception would end the process: answer 400 instead.
      logRequest(req, res, "rejected");
      send(res, 400, { code: "BadRequest", message: err.message });
      return;
    }
    logRequest(req, res, claimed?.[0]);
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
  });
}
