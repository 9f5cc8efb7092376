// The only file that reaches into @vercel/cosmosdb-server's private modules. Every path here belongs to
// version 1.0.1 (pinned exactly in package.json / package-lock.json); a different version may move or
// reshape them, which is why the version is pinned and why the hooks live together in one place.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lib = (path) => require(`@vercel/cosmosdb-server/lib/${path}`);

// Resource ids (_rid): the class whose static toBase64String / fromBase64String every rid passes through.
export const ResourceId = lib("account/resource-id").default;

// Public entry point: createHttpsServer(options) -> https.Server with the server's request listener.
export const { createHttpsServer } = require("@vercel/cosmosdb-server");

// The module whose `default` export index.js instantiates (at `listening`) as the in-memory account.
export const accountModule = lib("account");

// Per-container document store (an `Items` subclass): `_data` (Map rid -> item, in write order),
// `_index` (Map unique key -> rid), `_ridCount`, `_set(doc)` (every create/replace/upsert/patch ends here),
// `_getPartition(doc)`, `_getQuery(sql)`, `_userDefinedFunctions()`.
export const Documents = lib("account/documents").default;

// The server's SQL engine (its dependency @zeit/cosmosdb-query, resolved from the server as it loads it):
// queryEngine(sql) -> { exec(documents, { parameters, udf, maxItemCount, continuation }) -> { result, continuation } }.
export const queryEngine = createRequire(require.resolve("@vercel/cosmosdb-server"))("@zeit/cosmosdb-query").default;

// The engine's runtime helpers (`sort`, `paginate`, ...), the very object every compiled query calls them on,
// and its continuation-token codec, which `paginate` calls through its module object.
const queryRequire = createRequire(createRequire(require.resolve("@vercel/cosmosdb-server")).resolve("@zeit/cosmosdb-query"));
export const queryHelpers = queryRequire("./helpers");
export const queryContinuationToken = queryRequire("./continuation-token");

// The engine's SQL parser module, whose `parse` the engine calls through this very object (parse(sql) -> AST).
export const queryParser = queryRequire("./parser");

// The server's router: req -> [params, handler] | undefined. Used to tell unknown routes apart.
export const route = lib("routes").default;

// Formats a query result page ({ Documents, _count } plus x-ms-continuation / x-ms-item-count headers).
export const readItems = lib("handler/_read-items").default;

// Reads and parses a JSON request body.
export const readJson = lib("json").default;

// Document operations on a collection, shared with the server's own handlers (and its JSON batch):
// (collection, { partitionKey, id, resourceBody, ifMatch }) -> { statusCode, body }.
export const { createOperation, deleteOperation, readOperation, replaceOperation, upsertOperation } =
  lib("handler/_document-operations");
export const { patchOperation } = lib("handler/_patch-operations");

// Partition key header parsing as the server does it ("[\"a\"]" -> "a"; "[{}]" -> the id).
// The module object itself: the handlers call `parsePartitionKey` through it at every call, so partition.mjs
// replaces that export with the full-key parsing (installPartitionStorageKeys).
export const partitionKeyHeaderModule = lib("utils/get-partition-from-header");
export const getPartitionKeyHeader = partitionKeyHeaderModule.default;
// (header JSON, default) -> the storage key of that partition, as the server's handlers compute it (after install).
export const parsePartitionKey = (partitionKey, defaultValue) => partitionKeyHeaderModule.parsePartitionKey(partitionKey, defaultValue);
