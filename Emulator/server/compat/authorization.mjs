// The master-key signature of point operations on documents, checked as Cosmos DB's gateway checks it. The SDK signs
// `verb \n resource type \n resource link \n x-ms-date \n date \n` with the account key (HMAC-SHA256), the resource
// link built from the item id as the caller gave it; the gateway rebuilds the payload from the URL it received,
// decoded, and answers 401 when the two differ. For most ids they agree; for an id whose URL does not carry it
// back they do not, and Cosmos DB answers 401 Unauthorized (gateway mode) where a client might expect 404:
// - '?' starts the URL's query (the gateway sees the id up to it), '#' its fragment (never sent);
// - '%' followed by two hex digits: the SDK does not escape it and the gateway decodes it (`a%20b` reaches the
//   gateway as `a b`), reported in azure-cosmos-dotnet-v2 issues 458 and 547, v3 issue 1734 for '#'.
// - '\\' becomes '/' in the URL (.NET's Uri), so the gateway sees a deeper path than the SDK signed.
// Ids with '/' never reach an endpoint (the SDK cannot resolve the link: 404 before sending).
//
// The bundled server knows no account key but its clients use the emulator's well-known key (emulator.sh exports it
// as COSMOS_KEY), so the check is made with that key, on point operations only (GET, PUT, PATCH, DELETE of
// `.../docs/{id}` with a master-key token): that is where the id travels in the URL. A client signing with another
// key gets the same 401 there, as it would from Cosmos DB; everything else still does not check the key.
import { createHmac } from "node:crypto";
import { header, send } from "./respond.mjs";

export const WELL_KNOWN_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
const POINT_METHODS = new Set(["GET", "PUT", "PATCH", "DELETE"]);

/** The fields of an authorization header (`type=master&ver=1.0&sig=...`, URL-encoded as the SDK sends it). */
function tokenFields(raw) {
  let decoded;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return Object.fromEntries(decoded.split("&").map((part) => {
    const at = part.indexOf("=");
    return at < 0 ? [part, ""] : [part.slice(0, at), part.slice(at + 1)];
  }));
}

/** The payload Cosmos DB signs for a request on a resource link (lower-case verb, type and dates). */
export function signaturePayload(method, resourceType, resourceLink, xmsDate, date) {
  return `${method.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${(xmsDate ?? "").toLowerCase()}\n${(date ?? "").toLowerCase()}\n`;
}

export const sign = (payload, key = WELL_KNOWN_KEY) =>
  createHmac("sha256", Buffer.from(key, "base64")).update(payload, "utf8").digest("base64");

/**
 * Answers 401 (true) when a point operation's master-key signature does not match the payload rebuilt from the
 * URL received (`path`: the decoded database, container and item ids).
 */
export function refuseMismatchedSignature(req, res, path) {
  if (path.docId === undefined) return false;
  return refuseMismatchedLink(req, res, `dbs/${path.dbId}/colls/${path.collId}/docs/${path.docId}`);
}

// Below an item: `.../docs/{a}/{b}` (an id with '\\' the URL turned into '/'), which the server has no route for.
const BELOW_DOCUMENT = /^\/(dbs\/[^/]+\/colls\/[^/]+\/docs\/[^/]+\/.+)$/;

/** A point operation's path below an item: answered 401 when its signature does not match (true), as above. */
export function refuseBelowDocument(req, res, normalised) {
  const match = BELOW_DOCUMENT.exec(normalised);
  if (!match) return false;
  let link;
  try {
    link = decodeURIComponent(match[1]);
  } catch {
    return false;
  }
  return refuseMismatchedLink(req, res, link);
}

function refuseMismatchedLink(req, res, link) {
  if (!POINT_METHODS.has(req.method)) return false;
  const raw = header(req, "authorization");
  const fields = raw && tokenFields(raw);
  if (!fields || fields.type !== "master" || !fields.sig) return false;
  const payload = signaturePayload(req.method, "docs", link, header(req, "x-ms-date"), header(req, "date"));
  if (sign(payload) === fields.sig) return false;
  send(res, 401, {
    code: "Unauthorized",
    message: "The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. "
      + `For more info: https://aka.ms/cosmosdb-tsg-unauthorized. Server used the following payload to sign: '${payload}'`,
  });
  return true;
}
