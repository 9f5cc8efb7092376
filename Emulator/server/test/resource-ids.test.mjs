import { test } from "node:test";
import assert from "node:assert/strict";
import { ResourceId } from "../compat/internals.mjs";
import { decodeResourceId, encodeResourceId, installUrlSafeResourceIds } from "../compat/resource-ids.mjs";

test("a rid whose base64 holds '/' is written with '-' and read back to the same bytes", () => {
  installUrlSafeResourceIds();
  // Database 0x80003F00 and collection 0x80000002 encode as "gAA/AIAAAAI=" in plain base64.
  const bytes = Buffer.from([0x80, 0x00, 0x3f, 0x00, 0x80, 0x00, 0x00, 0x02]);
  assert.equal(bytes.toString("base64"), "gAA/AIAAAAI=");
  const rid = ResourceId.toBase64String(bytes);
  assert.equal(rid, "gAA-AIAAAAI=");
  assert.ok(!rid.includes("/"));
  assert.deepEqual(ResourceId.fromBase64String(rid), bytes);
});

test("every '-' is decoded, not only the first", () => {
  const bytes = Buffer.from([0xff, 0xff, 0xff, 0xfc, 0x3f, 0xff]);
  const rid = encodeResourceId(bytes);
  assert.ok(rid.split("-").length > 2, rid);
  assert.deepEqual(decodeResourceId(rid), bytes);
});

test("the server's database and collection rids never hold '/', and parse back", () => {
  installUrlSafeResourceIds();
  let plainWouldHaveSlash = 0;
  for (let database = 1; database < 300; database++) {
    for (let collection = 1; collection < 70; collection++) {
      // The server's own numbering (databases.js, collections.js).
      const db = ResourceId.newDatabaseId(((database << 8) | 0x80000000).toString());
      const coll = ResourceId.newDocumentCollectionId(db.toString(), (collection | 0x80000000).toString());
      const text = coll.toString();
      assert.ok(!text.includes("/"), text);
      assert.equal(ResourceId.parse(text).toString(), text);
      if (decodeResourceId(text).toString("base64").includes("/")) plainWouldHaveSlash++;
    }
  }
  assert.ok(plainWouldHaveSlash > 0, "no generated rid would have held '/' in plain base64: the case is not exercised");
});
