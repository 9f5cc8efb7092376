// Session consistency. Cosmos DB answers every document operation, query page and feed page with
// `x-ms-session-token: <partition key range id>:<version>#<global LSN>` (the SDK's VectorSessionToken; the
// .NET SDK also parses the older form `<range id>:<LSN>`) of the range that served it, and a
// read that carries a token ahead of what its range has written (a session this replica has not caught up
// with) with 404, substatus 1002 (read session not available). The SDK keeps the latest token per container
// and range, keyed by the collection's resource id, which it takes from the owner-id header
// (`x-ms-content-path`) of name-based requests; without that header it would never send a token back. Each
// range's LSN is its own write sequence (write-sequence.mjs); the version is -1 for a range that never split,
// as the service reports it, and the number of splits behind it otherwise.
import { header, send } from "./respond.mjs";

export const READ_SESSION_NOT_AVAILABLE = 1002;

const versionOf = (range) => (range.parents.length === 0 ? -1 : range.parents.length);

/**
 * The session token of the range a request reached (partitions/scope.mjs), in its current state; undefined
 * when it reached several (the SDK sends each range its own request and parses one `<range>:<token>` per
 * answer, so a container-wide request, such as a query plan, carries none).
 */
export function sessionToken(scope) {
  if (scope?.ranges.length !== 1) return undefined;
  const [range] = scope.ranges;
  return `${range.id}:${versionOf(range)}#${range.lsn}`;
}

export class SessionTokenError extends Error {}

const INTEGER = /^-?\d+$/;

/**
 * The global LSN of one range's token: `<version>#<global LSN>[#<region>=<local LSN>]...` or a bare LSN.
 * Throws SessionTokenError for anything else.
 */
function globalLsnOf(token, whole) {
  const segments = token.split("#");
  const lsn = segments.length === 1 ? segments[0] : segments[1];
  const regionsWellFormed = segments.slice(2).every((s) => /^\d+=-?\d+$/.test(s));
  if (!INTEGER.test(lsn) || (segments.length > 1 && !INTEGER.test(segments[0])) || !regionsWellFormed) {
    throw new SessionTokenError(`The session token provided '${whole}' is invalid.`);
  }
  return Number(lsn);
}

/**
 * Parses `x-ms-session-token` (one or more comma-separated `<range id>:<token>`) into range id -> highest
 * global LSN. Throws SessionTokenError when it is malformed.
 */
export function parseSessionToken(raw) {
  const byRange = new Map();
  for (const part of raw.split(",")) {
    const colon = part.indexOf(":");
    if (colon <= 0) throw new SessionTokenError(`The session token provided '${raw}' is invalid.`);
    const rangeId = part.slice(0, colon).trim();
    const lsn = globalLsnOf(part.slice(colon + 1).trim(), raw);
    byRange.set(rangeId, Math.max(lsn, byRange.get(rangeId) ?? Number.NEGATIVE_INFINITY));
  }
  return byRange;
}

/**
 * For a read: answers 400 (malformed token) or 404/1002 (token ahead of the range) and returns true, or
 * returns false to let the read proceed. Only the tokens of the ranges that serve the read count (a token
 * of another range says nothing about them); a token of a range that split counts for its children, which
 * continue its LSN.
 */
export function refuseUnavailableSession(req, res, scope) {
  const raw = header(req, "x-ms-session-token");
  if (!raw) return false;
  let byRange;
  try {
    byRange = parseSessionToken(raw);
  } catch (err) {
    if (!(err instanceof SessionTokenError)) throw err;
    send(res, 400, { code: "BadRequest", message: err.message });
    return true;
  }
  const behind = scope.ranges.some((range) =>
    [range.id, ...range.parents].some((id) => byRange.has(id) && byRange.get(id) > range.lsn));
  if (!behind) return false;
  send(res, 404, { code: "NotFound", message: "The read session is not available for the input session token." },
    { "x-ms-substatus": String(READ_SESSION_NOT_AVAILABLE) });
  return true;
}

export const INCORRECT_CONTAINER_RID = 1024;

/**
 * A client that encrypts (`x-ms-cosmos-is-client-encrypted: True`) names the container it means by resource
 * id (`x-ms-cosmos-intended-collection-rid`); Cosmos DB refuses the request with 400, substatus 1024
 * (IncorrectContainerRid), when the container under that name is another one (deleted and recreated), so data
 * is never written under the wrong encryption settings; the SDK's encryption package reads that pair as "reload
 * the container's encryption settings". Returns true when it answered.
 */
export function refuseOtherContainer(req, res, container) {
  const intended = header(req, "x-ms-cosmos-intended-collection-rid");
  if (!intended || (header(req, "x-ms-cosmos-is-client-encrypted") ?? "").toLowerCase() !== "true") return false;
  if (intended === container._rid) return false;
  send(res, 400, {
    code: "BadRequest",
    message: `The container named in the request has resource id ${container._rid}, not the intended ${intended}: it was deleted and recreated.`,
  }, { "x-ms-substatus": String(INCORRECT_CONTAINER_RID) });
  return true;
}

/**
 * Makes every answer about a container's documents carry what Cosmos DB sends with it, taken when the
 * headers are written (after a write has been applied): the session token of the ranges the request
 * reached, the owner id (the collection's resource id) and owner full name, and the partition key range id
 * (when the request reached one range). Headers a handler set stay.
 */
export function addDocumentHeaders(res, collection, ownerFullName, scope, extraHeaders = {}) {
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadWithSession(...args) {
    const container = collection.read();
    if (container) {
      const token = sessionToken(scope);
      const headers = {
        ...(token === undefined ? {} : { "x-ms-session-token": token }),
        "x-ms-content-path": container._rid,
        "x-ms-alt-content-path": ownerFullName,
        ...(scope.rangeId === undefined ? {} : { "x-ms-documentdb-partitionkeyrangeid": scope.rangeId }),
        ...extraHeaders,
      };
      for (const [name, value] of Object.entries(headers)) {
        if (!res.hasHeader(name)) res.setHeader(name, value);
      }
    }
    return writeHead.apply(this, args);
  };
}
