// Opt-in throughput enforcement: a container with provisioned throughput (its own offer, or its database's
// shared one) answers 429 TooManyRequests, substatus 3200 (RU budget exceeded), with `x-ms-retry-after-ms`,
// once the request units of the current second are spent, as Cosmos DB rate-limits. Off by default, so answers
// never depend on timing; on for every container with `EMULATOR_ENFORCE_THROUGHPUT=1` (or `start.mjs
// --enforce-throughput`), or for one container through the test-only route
//
//   POST /_emulator/dbs/{db}/colls/{coll}/throughput   body {"enforce": true | false}
//
// The charge model is the endpoint's own (1 RU per request, per batch operation), scaled by size so large
// writes cost more: a read, query page or change feed page costs 1 RU; a write costs 1 RU per started KB of
// its body (at least 1; a batch by its whole body). With enforcement on, `x-ms-request-charge` reports
// that charge. A request is admitted while the second's budget (the offer's RU/s; an autoscale offer's maximum)
// is not yet spent, and may take it below zero, as Cosmos DB lets one request exceed the remainder; the next
// one waits for the next second.
import { collectionOf, currentAccount } from "./account.mjs";
import { readJson } from "./internals.mjs";
import { provisionedThroughput } from "./offers.mjs";
import { badRequest, header, isTrue, notFound, send } from "./respond.mjs";

export const RU_BUDGET_EXCEEDED = 3200;
const KB = 1024;

const enforcedEverywhere = () => process.env.EMULATOR_ENFORCE_THROUGHPUT === "1";
const enforcedContainers = new Set(); // container _rid
const spending = new Map(); // offer key -> { second, spent }

/** The charge of a request by the model above. */
export function chargeOf({ isWrite, bodyBytes = 0 }) {
  if (!isWrite) return 1;
  return Math.max(Math.ceil(bodyBytes / KB), 1);
}

/**
 * Admits a charge against a budget of `ru` per second at time `now` (ms); returns 0 when admitted, else the
 * milliseconds until the next second, when the SDK may retry. Pure apart from the `state` it updates.
 */
export function admit(state, ru, charge, now) {
  const second = Math.floor(now / 1000);
  if (state.second !== second) {
    state.second = second;
    state.spent = 0;
  }
  if (state.spent >= ru) return Math.max(1, 1000 - (now % 1000));
  state.spent += charge;
  return 0;
}

const isWriteRequest = (req) =>
  req.method === "PUT" || req.method === "PATCH" || req.method === "DELETE"
  || (req.method === "POST" && !isTrue(req, "x-ms-documentdb-isquery") && !isTrue(req, "x-ms-cosmos-is-query-plan-request")
    && !/^application\/query\+json/i.test(header(req, "content-type") ?? ""));

/**
 * For a request about a container's documents: answers 429 and returns true when the container's budget for
 * this second is spent; otherwise charges the request (and reports the charge) and returns false.
 */
export function refuseOverBudget(req, res, dbId, collId) {
  const container = collectionOf(dbId, collId).read();
  const database = currentAccount().database(dbId).read();
  if (!container || !database || !(enforcedEverywhere() || enforcedContainers.has(container._rid))) return false;
  const budget = provisionedThroughput(database, container);
  if (!budget) return false;
  const isWrite = isWriteRequest(req);
  const charge = chargeOf({ isWrite, bodyBytes: Number(header(req, "content-length") ?? 0) });
  if (!spending.has(budget.key)) spending.set(budget.key, { second: -1, spent: 0 });
  const retryAfter = admit(spending.get(budget.key), budget.ru, charge, Date.now());
  if (retryAfter > 0) {
    send(res, 429, {
      code: "TooManyRequests",
      message: "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later.",
    }, { "x-ms-retry-after-ms": String(retryAfter), "x-ms-substatus": String(RU_BUDGET_EXCEEDED) });
    return true;
  }
  // The answer reports what was charged (a handler's own constant charge is replaced).
  const setHeader = res.setHeader;
  res.setHeader = function reportCharge(name, value) {
    return setHeader.call(this, name, name.toLowerCase() === "x-ms-request-charge" ? String(charge) : value);
  };
  return false;
}

const THROUGHPUT_PATH = /^\/_emulator\/dbs\/([^/]+)\/colls\/([^/]+)\/throughput$/;

/** The test-only route that turns enforcement on or off for one container. */
export function claimThroughputControl(req, path) {
  const match = req.method === "POST" && THROUGHPUT_PATH.exec(path);
  if (!match) return undefined;
  return ["control:throughput", async (res) => {
    let body;
    try {
      body = await readJson(req);
    } catch {
      return badRequest(res, "the throughput request body must be JSON");
    }
    if (typeof body?.enforce !== "boolean") return badRequest(res, "enforce must be true or false");
    const container = collectionOf(decodeURIComponent(match[1]), decodeURIComponent(match[2])).read();
    if (!container) return notFound(res);
    if (body.enforce) enforcedContainers.add(container._rid);
    else enforcedContainers.delete(container._rid);
    return send(res, 200, { enforce: body.enforce });
  }];
}
