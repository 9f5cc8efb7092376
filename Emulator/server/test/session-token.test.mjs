// Session tokens as the .NET SDK writes them (VectorSessionToken `<version>#<global LSN>[#<region>=<LSN>]`
// and the older bare LSN, each behind `<range id>:`, several joined by commas).
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSessionToken, SessionTokenError } from "../compat/session.mjs";

test("a vector token gives its range's global LSN", () => {
  assert.deepEqual(parseSessionToken("0:-1#12"), new Map([["0", 12]]));
  assert.deepEqual(parseSessionToken("0:3#12#1=7#2=9"), new Map([["0", 12]]));
});

test("a bare LSN (the older format) is its own global LSN", () => {
  assert.deepEqual(parseSessionToken("0:12"), new Map([["0", 12]]));
});

test("several ranges are kept apart and the highest token of a range wins", () => {
  assert.deepEqual(parseSessionToken("0:-1#5,1:-1#9,0:-1#7"), new Map([["0", 7], ["1", 9]]));
});

test("anything else is refused", () => {
  for (const bad of ["", "12", ":-1#5", "0:", "0:-1#", "0:x#5", "0:-1#5#r=1", "0:-1#5,", "0:-1#1.5"]) {
    assert.throws(() => parseSessionToken(bad), SessionTokenError, bad);
  }
});
