// `GET .../colls/{coll}/pkranges`: the container's live partition key ranges, as the SDK's routing map reads
// them. The SDK reads this feed incrementally (`A-IM: Incremental feed`, `If-None-Match: <etag>`) and keeps
// asking until it gets 304, so the etag is the layout's version, which a split changes: the same etag is
// 304, anything else gets every live range (each child names its ancestors in `parents`, from which the
// SDK drops the ranges that split) and the current etag.
import { collectionOf } from "../account.mjs";
import { header, notFound, send } from "../respond.mjs";
import { layoutOf } from "./ranges.mjs";

const PKRANGES_PATH = /^\/dbs\/([^/]+)\/colls\/([^/]+)\/pkranges$/;

export const isPartitionKeyRangesRead = (req, path) => req.method === "GET" && PKRANGES_PATH.test(path);

export function partitionKeyRanges(req, res, path) {
  const [, dbId, collId] = PKRANGES_PATH.exec(path);
  const collection = collectionOf(decodeURIComponent(dbId), decodeURIComponent(collId));
  const container = collection.read();
  if (!container) return notFound(res);
  const layout = layoutOf(collection.documents);
  const etag = `"${layout.version}"`;
  const headers = { etag, "x-ms-item-count": String(layout.ranges.length) };
  if (header(req, "if-none-match") === etag) {
    return send(res, 304, undefined, { ...headers, "x-ms-item-count": "0" });
  }
  const { partitionKeyRanges: store } = collection;
  const ranges = layout.ranges.map((range) => {
    const rid = store._rid(Number(range.id) + 1);
    return {
      id: range.id,
      _rid: rid,
      _self: store._self(rid),
      _etag: `"${range.id}-${layout.version}"`,
      _ts: Math.floor(Date.now() / 1000),
      minInclusive: range.minInclusive,
      maxExclusive: range.maxExclusive,
      ridPrefix: Number(range.id),
      throughputFraction: 1 / layout.ranges.length,
      status: "online",
      parents: range.parents,
    };
  });
  return send(res, 200, { _rid: container._rid, PartitionKeyRanges: ranges, _count: ranges.length }, headers);
}
