// Resource ids as Cosmos DB writes them: base64 with '-' in place of '/'. The server writes plain base64, so a
// container or document whose numeric id happens to encode a '/' gets a _rid that cannot stand in a URL path
// (dbs/<rid>/colls/<rid>/pkranges): the SDK's rid-addressed requests for it then fail with 404 ("stale cache").
// Which container that hits depends on how many were created before it, so the failure moved with test order.
import { ResourceId } from "./internals.mjs";

/** Encodes rids URL-safe ('/' as '-') and decodes every '-' back (the server's own decoder replaced only the first). */
export function installUrlSafeResourceIds() {
  ResourceId.toBase64String = (buffer) => encodeResourceId(buffer);
  ResourceId.fromBase64String = (text) => decodeResourceId(text);
}

export function encodeResourceId(buffer) {
  return buffer.toString("base64").replaceAll("/", "-");
}

export function decodeResourceId(text) {
  return Buffer.from(text.replaceAll("-", "/"), "base64");
}
