// Change feed (latest-version mode), which the SDK reads as `GET .../docs` with `A-IM: Incremental feed`.
// The server answers one page and then 304 forever (its etag is the constant "1"). Here the etag is the
// container's write sequence (LSN): the SDK keeps the etag of the last page as its continuation and sends
// it back in `If-None-Match`; no `If-None-Match` means from the beginning (or from `If-Modified-Since`),
// `*` means from now. Deletes are not reported, as in Cosmos DB's latest-version mode. The feed is read per
// partition key range (the SDK names one in `x-ms-documentdb-partitionkeyrangeid`, or a partition key, or an
// EPK slice of a range), because LSNs are per range; a request that reaches several ranges is refused. After
// a split the SDK reads the children with the parent's continuation: they continue the parent's LSN.
import { lsnOf } from "./write-sequence.mjs";
import { sessionToken } from "./session.mjs";
import { badRequest, header, notFound, send } from "./respond.mjs";

export const isChangeFeedRequest = (req) =>
  req.method === "GET" && /incremental feed/i.test(header(req, "a-im") ?? "");

/**
 * A change feed in another mode (all versions and deletes sends `A-IM: Full-Fidelity Feed`): not served, so
 * refused rather than answered as a plain read of the documents, where a consumer would wait for deletes
 * that never come.
 */
export const isUnservedChangeFeedRequest = (req) =>
  req.method === "GET" && Boolean(header(req, "a-im")) && !isChangeFeedRequest(req);

export const refuseChangeFeedMode = (req, res) => badRequest(res,
  `The change feed mode requested (A-IM: ${header(req, "a-im")}) is not served by this endpoint: only the ` +
  "latest-version change feed (A-IM: Incremental feed) is; all versions and deletes is not implemented.");

const quote = (lsn) => `"${lsn}"`;

// The SDK parses x-ms-item-count on every change feed answer, 304 included. The session token carries the
// container's latest LSN, from which the change feed estimator computes the remaining lag (that LSN minus the
// LSN before the first change it reads, or nothing when there is no change).
const headers = (scope, lsn, count) =>
  ({ etag: quote(lsn), "x-ms-item-count": String(count), "x-ms-session-token": sessionToken(scope) });
const notModified = (res, scope, lsn) => send(res, 304, undefined, headers(scope, lsn, 0));

function parseMaxItemCount(req) {
  const value = Number.parseInt(header(req, "x-ms-max-item-count") ?? "", 10);
  // Absent, 0 or -1 ("service decides") mean no page limit for a feed this small.
  return Number.isFinite(value) && value > 0 ? value : Number.POSITIVE_INFINITY;
}

export function changeFeed(req, res, collection) {
  const container = collection.read();
  const scope = req.partitionScope;
  if (!container || !scope) {
    return notFound(res);
  }
  if (scope.ranges.length !== 1) {
    return badRequest(res, `The change feed is read per partition key range; this container has ${scope.ranges.length} ` +
      "and the request named none (x-ms-documentdb-partitionkeyrangeid or x-ms-documentdb-partitionkey).");
  }
  const current = scope.ranges[0].lsn;
  const ifNoneMatch = header(req, "if-none-match");
  if (ifNoneMatch === "*") {
    // From now: nothing to return; the etag marks where the next read starts.
    return notModified(res, scope, current);
  }

  let since = 0;
  if (ifNoneMatch) {
    since = Number.parseInt(ifNoneMatch.replace(/"/g, ""), 10);
    if (!Number.isSafeInteger(since) || since < 0) {
      return badRequest(res, `invalid change feed continuation (If-None-Match): ${ifNoneMatch}`);
    }
  }
  const modifiedSince = !ifNoneMatch && header(req, "if-modified-since")
    ? Date.parse(header(req, "if-modified-since"))
    : undefined;

  const changes = [];
  for (const doc of scope.documents()) {
    const lsn = lsnOf(doc);
    if (lsn <= since) continue;
    if (modifiedSince !== undefined && doc._ts * 1000 < modifiedSince) continue;
    changes.push({ doc, lsn });
  }
  changes.sort((a, b) => a.lsn - b.lsn);

  const maxItemCount = parseMaxItemCount(req);
  const page = changes.slice(0, maxItemCount);
  if (page.length === 0) {
    // Nothing new in scope up to `current`, so the next read may start there.
    return notModified(res, scope, Math.max(since, current));
  }
  // A cut page resumes after its last change; a complete one after everything written so far.
  const next = page.length < changes.length ? page[page.length - 1].lsn : Math.max(since, current);
  const body = {
    _rid: container._rid,
    Documents: page.map(({ doc, lsn }) => ({ ...doc, _lsn: lsn })),
    _count: page.length,
  };
  return send(res, 200, body, headers(scope, next, page.length));
}
