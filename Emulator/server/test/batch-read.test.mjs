// A batch read's conditions (compat/batch/operations.mjs), as on a point read.
import assert from "node:assert/strict";
import test from "node:test";
import { conditionalRead } from "../compat/batch/operations.mjs";

const found = { statusCode: 200, body: { id: "a", _etag: "\"e1\"" } };

test("If-None-Match with the current etag or * is 304 with the etag and no document", () => {
  assert.deepEqual(conditionalRead(found, { ifNoneMatch: "\"e1\"" }), { statusCode: 304, body: { _etag: "\"e1\"" } });
  assert.equal(conditionalRead(found, { ifNoneMatch: "*" }).statusCode, 304);
  assert.equal(conditionalRead(found, { ifNoneMatch: "\"e0\"" }), found);
});

test("If-Match with another etag is 412; with the current etag or * the read is served", () => {
  assert.equal(conditionalRead(found, { ifMatch: "\"e0\"" }).statusCode, 412);
  assert.equal(conditionalRead(found, { ifMatch: "\"e1\"" }), found);
  assert.equal(conditionalRead(found, { ifMatch: "*" }), found);
});

test("a missing document stays 404 whatever the conditions", () => {
  const missing = { statusCode: 404, body: {} };
  assert.equal(conditionalRead(missing, { ifMatch: "\"e0\"", ifNoneMatch: "*" }), missing);
});
