// `x-ms-resource-quota` / `x-ms-resource-usage`: Cosmos DB reports a container's limits and what it uses on
// container reads and document reads (`name=value;` pairs, sizes in KB; documentsCount -1 = unlimited). The
// server sends neither. The quota is Cosmos DB's (2 MB documents, unlimited count and size); the usage is
// measured on the stored documents (their JSON), so it grows and shrinks with them.
import { layoutOf } from "./partitions/ranges.mjs";

const QUOTA = "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760;";

const cache = new WeakMap(); // Documents -> { signature, usage }: recomputed only after a write

function usageOf(collection) {
  const { documents } = collection;
  const signature = `${documents._data.size}:${layoutOf(documents).ranges.map((range) => `${range.id}=${range.lsn}`).join(",")}`;
  const cached = cache.get(documents);
  if (cached?.signature === signature) return cached.usage;
  let bytes = 0;
  for (const item of documents._data.values()) bytes += Buffer.byteLength(JSON.stringify(item.read()));
  const kb = Math.ceil(bytes / 1024);
  const functions = collection.userDefinedFunctions?._data?.size ?? 0;
  const usage = `functions=${functions};storedProcedures=0;triggers=0;documentSize=${Math.ceil(kb / 1024)};documentsSize=${kb};documentsCount=${documents._data.size};collectionSize=${kb};`;
  cache.set(documents, { signature, usage });
  return usage;
}

/** The two headers for a container (its collection item from the account). */
export const resourceHeaders = (collection) => ({ "x-ms-resource-quota": QUOTA, "x-ms-resource-usage": usageOf(collection) });
