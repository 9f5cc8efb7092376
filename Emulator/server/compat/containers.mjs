// Container creation (`POST /dbs/{db}/colls`) with the checks Cosmos DB makes on the definition, which the
// server skips (it only wants an id and a `partitionKey.paths` array):
// - the id: a non-empty string of at most 255 characters without '/', '\', '?' or '#';
// - the partition key definition: `paths` a non-empty array of strings that start with '/' (no empty segment,
//   no wildcard or array step); kind "Hash" with exactly one path, "MultiHash" (hierarchical keys) with two or
//   three and version 2; version 1 or 2; "Range" and any other kind refused;
// - the unique key policy: each unique key a non-empty list of paths that start with '/', no path named twice
//   in one key and no key repeated.
// Each refusal is 400 `{ code: "BadRequest", message }` naming the field, as Cosmos DB answers.
//
// A definition without a partition key is what older clients create (a non-partitioned container). Cosmos DB
// presents such a container with its system partition key, `{"paths": ["/_partitionKey"], "kind": "Hash",
// "systemKey": true}`, and the SDK needs that definition: PartitionKey.None on such a container is the empty
// key `[]` (the change feed processor writes its leases that way to a lease container without a key). So the
// definition is stored with the system key; documents without `_partitionKey` live in its "none" partition.
//
// The creation itself is the server's own handler (through offers.mjs, which records any throughput asked
// for), fed the checked definition.
import { Readable } from "node:stream";
import { createWithOffer } from "./offers.mjs";
import { badRequest, header, isTrue } from "./respond.mjs";

export const MAX_ID_LENGTH = 255;
export const SYSTEM_PARTITION_KEY = Object.freeze({ paths: ["/_partitionKey"], kind: "Hash", systemKey: true });
const MAX_HIERARCHICAL_PATHS = 3;
const COLLECTIONS_PATH = /^\/dbs\/[^/]+\/colls$/;

/** Why a resource id is not one Cosmos DB accepts, or undefined. */
export function resourceIdError(id, what = "id") {
  if (typeof id !== "string" || id.length === 0) return `The ${what} must be a non-empty string.`;
  if (id.length > MAX_ID_LENGTH) return `The ${what} is ${id.length} characters long; at most ${MAX_ID_LENGTH} are allowed.`;
  const invalid = /[/\\?#]/.exec(id);
  // Cosmos DB's own wording (the SDK uses it too for the names it checks itself).
  if (invalid) return `The resource name presented contains invalid character '${invalid[0]}'.`;
  return undefined;
}

function pathError(path, field) {
  if (typeof path !== "string" || !path.startsWith("/")) return `${field} '${path}' is invalid: a path must start with '/'.`;
  const segments = path.slice(1).split("/");
  if (segments.some((segment) => segment === "" || segment === "*" || segment === "[]" || segment === "?")) {
    return `${field} '${path}' is invalid: it must name a property at every step.`;
  }
  return undefined;
}

function partitionKeyError(partitionKey) {
  if (typeof partitionKey !== "object" || partitionKey === null || Array.isArray(partitionKey)) {
    return "The partition key definition must be an object.";
  }
  const { paths, kind = "Hash", version = 1 } = partitionKey;
  if (!Array.isArray(paths) || paths.length === 0) return "The partition key definition must list at least one path in 'paths'.";
  for (const path of paths) {
    const error = pathError(path, "The partition key path");
    if (error) return error;
  }
  if (new Set(paths).size !== paths.length) return "The partition key definition names a path more than once.";
  if (version !== 1 && version !== 2) return `The partition key definition version ${version} is invalid: it must be 1 or 2.`;
  if (kind === "Hash") {
    return paths.length === 1 ? undefined
      : `A partition key of kind 'Hash' has exactly one path, not ${paths.length}; hierarchical keys use kind 'MultiHash'.`;
  }
  if (kind === "MultiHash") {
    if (paths.length > MAX_HIERARCHICAL_PATHS) {
      return `A hierarchical partition key (kind 'MultiHash') has at most ${MAX_HIERARCHICAL_PATHS} paths, not ${paths.length}.`;
    }
    return version === 2 ? undefined : "A hierarchical partition key (kind 'MultiHash') requires version 2.";
  }
  return `The partition key kind '${kind}' is invalid: it must be 'Hash' or 'MultiHash'.`;
}

function uniqueKeyPolicyError(policy) {
  if (policy === undefined || policy === null) return undefined;
  const keys = policy.uniqueKeys ?? [];
  if (!Array.isArray(keys)) return "The unique key policy's 'uniqueKeys' must be an array.";
  const seen = new Set();
  for (const [index, key] of keys.entries()) {
    const paths = key?.paths;
    if (!Array.isArray(paths) || paths.length === 0) return `The unique key at index ${index} must list at least one path.`;
    for (const path of paths) {
      const error = pathError(path, "The unique key path");
      if (error) return error;
    }
    if (new Set(paths).size !== paths.length) return `The unique key at index ${index} names a path more than once.`;
    const canonical = JSON.stringify([...paths].sort());
    if (seen.has(canonical)) return `The unique key at index ${index} repeats another unique key of the policy.`;
    seen.add(canonical);
  }
  return undefined;
}

/** Why Cosmos DB would refuse this container definition, or undefined. */
export function containerDefinitionError(definition) {
  if (typeof definition !== "object" || definition === null || Array.isArray(definition)) {
    return "The container definition must be a JSON object.";
  }
  return resourceIdError(definition.id, "container id")
    ?? (definition.partitionKey === undefined || definition.partitionKey === null ? undefined : partitionKeyError(definition.partitionKey))
    ?? uniqueKeyPolicyError(definition.uniqueKeyPolicy);
}

/** The definition as stored: a container without a partition key gets Cosmos DB's system key. */
export function withSystemPartitionKey(definition) {
  const { partitionKey } = definition;
  return partitionKey === undefined || partitionKey === null ? { ...definition, partitionKey: { ...SYSTEM_PARTITION_KEY, paths: [...SYSTEM_PARTITION_KEY.paths] } } : definition;
}

/** True when the container has no partition key of its own: Cosmos DB's system key (or none at all). */
export function isNonPartitioned(container) {
  const key = container?.partitionKey;
  return !key || !Array.isArray(key.paths) || key.paths.length === 0 || key.systemKey === true;
}

const isQuery = (req) => isTrue(req, "x-ms-documentdb-isquery") || /^application\/query\+json/i.test(header(req, "content-type") ?? "");

export const isContainerCreate = (req, path) => req.method === "POST" && COLLECTIONS_PATH.test(path) && !isQuery(req);

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function createContainer(req, res) {
  const text = (await readBody(req)).toString("utf8");
  let definition;
  try {
    definition = JSON.parse(text);
  } catch {
    return badRequest(res, "The request body is not a JSON container definition.");
  }
  const error = containerDefinitionError(definition);
  if (error) return badRequest(res, error);
  // The server's handler reads the body from the request it is given: a replay of this one with the checked definition.
  const body = Buffer.from(JSON.stringify(withSystemPartitionKey(definition)), "utf8");
  const replay = Object.assign(Readable.from([body]), {
    method: req.method,
    url: req.url,
    headers: { ...req.headers, "content-length": String(body.length) },
  });
  return createWithOffer(replay, res);
}
