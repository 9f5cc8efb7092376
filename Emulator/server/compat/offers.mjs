// Throughput (offers), which the server does not model at all. The SDK finds a resource's offer with a query
// on `/offers` (`... where r.offerResourceId = @targetRID`), then reads (`GET /offers/{rid}`) or replaces
// (`PUT /offers/{rid}`) it by its link. Offers live here, keyed by the resource's _rid:
// - a container or database created with `x-ms-offer-throughput` (manual) or
//   `x-ms-cosmos-offer-autopilot-settings` (autoscale) gets that offer; the creation itself is still done by
//   the server's own handler (claimed only to learn the new resource's _rid);
// - a container created without throughput in a database without shared throughput has 400 RU/s, as on a
//   provisioned account; other resources have no offer.
// Offers of deleted resources disappear. Throughput limits requests only when enforced (throughput.mjs).
import { randomBytes, randomUUID } from "node:crypto";
import { currentAccount } from "./account.mjs";
import { readItems, readJson, route } from "./internals.mjs";
import { compileQuery } from "./query-extensions.mjs";
import { badRequest, header, isTrue, notFound, send } from "./respond.mjs";

const MIN_MANUAL_THROUGHPUT = 400;
const MIN_AUTOSCALE_MAX_THROUGHPUT = 1000;
const DEFAULT_CONTAINER_THROUGHPUT = MIN_MANUAL_THROUGHPUT;

const offersByResource = new Map(); // resource _rid -> offer

function newOfferId() {
  for (;;) {
    const id = randomBytes(3).toString("base64url");
    if (![...offersByResource.values()].some((offer) => offer.id === id)) return id;
  }
}

function manualContent(throughput) {
  return { offerThroughput: throughput, offerIsRUPerMinuteThroughputEnabled: false };
}

function autoscaleContent(maxThroughput) {
  // Autoscale runs between a tenth of its maximum and the maximum; idle, it sits at the bottom.
  return { offerThroughput: maxThroughput / 10, offerAutopilotSettings: { maxThroughput } };
}

function createOffer(resource, content) {
  const id = newOfferId();
  const offer = {
    id,
    _rid: id,
    _self: `offers/${id}/`,
    _etag: `"${randomUUID()}"`,
    _ts: Math.floor(Date.now() / 1000),
    offerVersion: "V2",
    offerType: "Invalid",
    resource: resource._self,
    offerResourceId: resource._rid,
    content,
  };
  offersByResource.set(resource._rid, offer);
  return offer;
}

// Validates a requested content; returns an error message or undefined.
function contentError(content) {
  const autoscale = content?.offerAutopilotSettings;
  if (autoscale) {
    const max = autoscale.maxThroughput;
    return Number.isSafeInteger(max) && max >= MIN_AUTOSCALE_MAX_THROUGHPUT && max % 1000 === 0
      ? undefined
      : `autoscale maximum throughput must be a multiple of 1000 and at least ${MIN_AUTOSCALE_MAX_THROUGHPUT}, got ${max}`;
  }
  const throughput = content?.offerThroughput;
  return Number.isSafeInteger(throughput) && throughput >= MIN_MANUAL_THROUGHPUT && throughput % 100 === 0
    ? undefined
    : `throughput must be a multiple of 100 and at least ${MIN_MANUAL_THROUGHPUT}, got ${throughput}`;
}

// The offer content a creation request asks for, or undefined; throws a message on a bad value.
function requestedContent(req) {
  const autoscale = header(req, "x-ms-cosmos-offer-autopilot-settings");
  const manual = header(req, "x-ms-offer-throughput");
  let content;
  if (autoscale) {
    let settings;
    try {
      settings = JSON.parse(autoscale);
    } catch {
      throw new Error(`invalid x-ms-cosmos-offer-autopilot-settings: ${autoscale}`);
    }
    content = autoscaleContent(settings?.maxThroughput);
  } else if (manual) {
    content = manualContent(Number(manual));
  }
  const error = content && contentError(content);
  if (error) throw new Error(error);
  return content;
}

/** Every offer of an existing resource, defaults included; drops those of deleted resources. */
function currentOffers() {
  const live = new Set();
  for (const databaseItem of currentAccount().databases._data.values()) {
    const database = databaseItem.read();
    live.add(database._rid);
    for (const collectionItem of databaseItem.collections._data.values()) {
      const collection = collectionItem.read();
      live.add(collection._rid);
      if (!offersByResource.has(collection._rid) && !offersByResource.has(database._rid)) {
        createOffer(collection, manualContent(DEFAULT_CONTAINER_THROUGHPUT));
      }
    }
  }
  for (const rid of offersByResource.keys()) {
    if (!live.has(rid)) offersByResource.delete(rid);
  }
  return [...offersByResource.values()];
}

/**
 * True when a container shares its database's throughput (the database has an offer, the container none
 * of its own): Cosmos DB says so in `x-ms-share-throughput` on the container's answers.
 */
export function sharesDatabaseThroughput(database, container) {
  const offers = currentOffers();
  return offers.some((o) => o.offerResourceId === database._rid) && !offers.some((o) => o.offerResourceId === container._rid);
}

/**
 * The throughput a container can spend per second: its own offer, else its database's shared one, as
 * { key (the offer's resource _rid, shared by the containers of a database), ru } (an autoscale offer's maximum);
 * undefined when neither has an offer.
 */
export function provisionedThroughput(database, container) {
  const offers = currentOffers();
  const offer = offers.find((o) => o.offerResourceId === container._rid) ?? offers.find((o) => o.offerResourceId === database._rid);
  return offer && { key: offer.offerResourceId, ru: ruOf(offer) };
}

/** A container's own RU/s (an autoscale offer's maximum), or undefined when it shares its database's or has none. */
export function ownThroughput(container) {
  const offer = currentOffers().find((o) => o.offerResourceId === container._rid);
  return offer && ruOf(offer);
}

const ruOf = ({ content }) => content.offerAutopilotSettings?.maxThroughput ?? content.offerThroughput;

const throughputListeners = [];

/** Calls `listener(resourceRid, ru)` after every offer replace (the partitions split when their throughput grows). */
export function onThroughputChange(listener) {
  throughputListeners.push(listener);
}

const offerById = (id) => currentOffers().find((offer) => offer.id === id || offer._rid === id);

const offerHeaders = { "x-ms-cosmos-min-throughput": String(MIN_MANUAL_THROUGHPUT) };

/**
 * Creates a database or container with the server's own handler, and the offer the request asks for
 * (`x-ms-offer-throughput` / `x-ms-cosmos-offer-autopilot-settings`), if any; a bad value is 400.
 */
export async function createWithOffer(req, res) {
  let content;
  try {
    content = requestedContent(req);
  } catch (err) {
    await readJson(req).catch(() => undefined); // drain the body so the connection can be reused
    return badRequest(res, err.message);
  }
  // The server's own handler creates the resource and answers what it returns.
  const [params, handler] = route(req);
  const body = await handler(currentAccount(), req, res, params);
  if (res.statusCode === 201 && body?._rid && content) createOffer(body, content);
  return send(res, res.statusCode, body);
}

async function queryOffers(req, res) {
  const request = await readJson(req);
  if (!request.query) return badRequest(res, "missing query");
  const body = await readItems(req, res, "Offers", async ({ continuation, maxItemCount }) =>
    compileQuery(request.query).exec(currentOffers(), { parameters: request.parameters, maxItemCount, continuation }));
  return send(res, res.statusCode, body);
}

function readOffer(res, id) {
  const offer = offerById(id);
  return offer ? send(res, 200, offer, offerHeaders) : notFound(res);
}

async function replaceOffer(req, res, id) {
  const replacement = await readJson(req);
  const offer = offerById(id);
  if (!offer) return notFound(res);
  const ifMatch = header(req, "if-match");
  if (ifMatch && ifMatch !== offer._etag) {
    return send(res, 412, { code: "PreconditionFailed", message: "The offer was changed since it was read." });
  }
  if (replacement.offerResourceId !== undefined && replacement.offerResourceId !== offer.offerResourceId) {
    return badRequest(res, "offerResourceId cannot be changed");
  }
  const error = contentError(replacement.content);
  if (error) return badRequest(res, error);
  const { offerAutopilotSettings, offerThroughput } = replacement.content;
  offer.content = offerAutopilotSettings
    ? autoscaleContent(offerAutopilotSettings.maxThroughput)
    : manualContent(offerThroughput);
  offer._etag = `"${randomUUID()}"`;
  offer._ts = Math.floor(Date.now() / 1000);
  for (const listener of throughputListeners) listener(offer.offerResourceId, offerAutopilotSettings?.maxThroughput ?? offerThroughput);
  return send(res, 200, offer, offerHeaders);
}

const isQuery = (req) => isTrue(req, "x-ms-documentdb-isquery") || header(req, "content-type") === "application/query+json";
const hasOfferHeader = (req) =>
  Boolean(header(req, "x-ms-offer-throughput") || header(req, "x-ms-cosmos-offer-autopilot-settings"));

/** The offers handler for a request (by its normalised path), or undefined. */
export function claimOffers(req, path) {
  const creates = req.method === "POST" && !isQuery(req) && hasOfferHeader(req);
  // Container creations go through containers.mjs, which checks the definition and then calls createWithOffer.
  if (creates && path === "/dbs") {
    return ["offer-create", (res) => createWithOffer(req, res)];
  }
  if (path === "/offers") {
    if (req.method === "POST" && isQuery(req)) return ["offers", (res) => queryOffers(req, res)];
    if (req.method === "GET") return ["offers", (res) => send(res, 200, { _rid: "", Offers: currentOffers(), _count: currentOffers().length })];
    return undefined;
  }
  const match = /^\/offers\/([^/]+)$/.exec(path);
  if (!match) return undefined;
  const id = decodeURIComponent(match[1]);
  if (req.method === "GET") return ["offers", (res) => readOffer(res, id)];
  if (req.method === "PUT") return ["offers", (res) => replaceOffer(req, res, id)];
  return undefined;
}
