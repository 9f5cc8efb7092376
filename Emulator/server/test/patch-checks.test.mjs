import { test } from "node:test";
import assert from "node:assert/strict";
import { patchRefusal } from "../compat/patch-checks.mjs";

const doc = { id: "a", o: { x: 1 }, arr: [1, 2], s: "text" };

test("a write whose parent is missing is named, whatever the operation", () => {
  for (const operation of [
    { op: "set", path: "/missing/x", value: 1 },
    { op: "add", path: "/o/new/k", value: 1 },
    { op: "incr", path: "/missing/x", value: 1 },
    { op: "move", from: "/s", path: "/missing/x" },
    { op: "set", path: "/s/x", value: 1 },
    { op: "add", path: "/arr/5/x", value: 1 },
  ]) {
    assert.match(patchRefusal(doc, [operation]) ?? "", /existing node/, JSON.stringify(operation));
  }
});

test("parents that exist, or that an earlier operation of the patch creates, pass", () => {
  assert.equal(patchRefusal(doc, [{ op: "set", path: "/o/y", value: 1 }, { op: "add", path: "/arr/-", value: 3 }]), undefined);
  assert.equal(patchRefusal(doc, [{ op: "add", path: "/n", value: {} }, { op: "set", path: "/n/k", value: 1 }]), undefined);
  assert.equal(patchRefusal(doc, [{ op: "move", from: "/o", path: "/p" }, { op: "set", path: "/p/y", value: 2 }]), undefined);
  assert.equal(patchRefusal(doc, [{ op: "add", path: "/arr/0", value: { k: 1 } }, { op: "set", path: "/arr/0/j", value: 2 }]), undefined);
});

test("a parent an earlier operation removed is missing", () => {
  assert.match(patchRefusal(doc, [{ op: "remove", path: "/o" }, { op: "set", path: "/o/x", value: 2 }]) ?? "", /existing node/);
  assert.match(patchRefusal(doc, [{ op: "move", from: "/o", path: "/p" }, { op: "set", path: "/o/x", value: 2 }]) ?? "", /existing node/);
});

test("removes, replaces and malformed operations are left to the server", () => {
  assert.equal(patchRefusal(doc, [{ op: "remove", path: "/missing/x" }]), undefined);
  assert.equal(patchRefusal(doc, [{ op: "replace", path: "/missing/x", value: 1 }]), undefined);
  assert.equal(patchRefusal(doc, [{ op: "set", path: "nope", value: 1 }]), undefined);
});

test("an increment of null is refused; of a missing property or a number, left to the server", () => {
  const withNull = { id: "a", n: null, o: { k: 1 } };
  assert.match(patchRefusal(withNull, [{ op: "incr", path: "/n", value: 1 }]) ?? "", /numeric/);
  assert.match(patchRefusal(doc, [{ op: "set", path: "/o/x", value: null }, { op: "incr", path: "/o/x", value: 1 }]) ?? "", /numeric/);
  assert.equal(patchRefusal(withNull, [{ op: "incr", path: "/o/k", value: 1 }, { op: "incr", path: "/o/new", value: 1 }]), undefined);
});
