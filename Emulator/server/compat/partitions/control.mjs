// Test-only control routes of this endpoint (Cosmos DB has no such thing; it splits ranges as data grows):
//
//   POST /_emulator/dbs/{db}/colls/{coll}/split   body {"rangeId": "1"} (optional)
//
// splits the named live range (by default the one holding the most documents) into two children and answers
// 200 with the children ({ id, minInclusive, maxExclusive, parents }); 404 for a missing container, 409 for
// a range that already split or does not exist, 400 for a malformed body. Work in flight carries on: a
// request naming the old range from then on is answered 410/1002 and the SDK moves to the children.
import { collectionOf } from "../account.mjs";
import { readJson } from "../internals.mjs";
import { badRequest, notFound, send } from "../respond.mjs";
import { layoutOf, rangeOfDocument } from "./ranges.mjs";

const SPLIT_PATH = /^\/_emulator\/dbs\/([^/]+)\/colls\/([^/]+)\/split$/;

export function claimControl(req, path) {
  const match = req.method === "POST" && SPLIT_PATH.exec(path);
  if (!match) return undefined;
  return ["control:split", (res) => split(req, res, decodeURIComponent(match[1]), decodeURIComponent(match[2]))];
}

function busiestRange(documents) {
  const counts = new Map();
  for (const item of documents._data.values()) {
    const range = rangeOfDocument(documents, item.read());
    counts.set(range.id, (counts.get(range.id) ?? 0) + 1);
  }
  const layout = layoutOf(documents);
  return layout.ranges.reduce((best, range) => ((counts.get(range.id) ?? 0) > (counts.get(best.id) ?? 0) ? range : best)).id;
}

async function split(req, res, dbId, collId) {
  let body;
  try {
    body = await readJson(req);
  } catch {
    return badRequest(res, "the split request body must be JSON");
  }
  const collection = collectionOf(dbId, collId);
  if (!collection.read()) return notFound(res);
  const rangeId = body?.rangeId ?? busiestRange(collection.documents);
  if (typeof rangeId !== "string") return badRequest(res, "rangeId must be a string");
  let children;
  try {
    children = layoutOf(collection.documents).split(rangeId);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return send(res, 409, { code: "Conflict", message: err.message });
  }
  console.log(`${new Date().toISOString()} [compat:control] split ${dbId}/${collId} range ${rangeId} into ${children.map((c) => c.id).join(", ")}`);
  return send(res, 200, { split: rangeId, children: children.map(({ lsn, ...child }) => child) });
}
