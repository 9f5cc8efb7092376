// Throughput enforcement's charge model and per-second budget (compat/throughput.mjs).
import assert from "node:assert/strict";
import test from "node:test";
import { admit, chargeOf } from "../compat/throughput.mjs";

test("reads cost 1 RU; writes 1 RU per started KB of their body, at least 1", () => {
  assert.equal(chargeOf({ isWrite: false, bodyBytes: 50_000 }), 1);
  assert.equal(chargeOf({ isWrite: true, bodyBytes: 0 }), 1);
  assert.equal(chargeOf({ isWrite: true, bodyBytes: 1024 }), 1);
  assert.equal(chargeOf({ isWrite: true, bodyBytes: 1025 }), 2);
  assert.equal(chargeOf({ isWrite: true, bodyBytes: 10 * 1024 }), 10);
});

test("a second's budget admits requests until it is spent, the last one may overdraw it", () => {
  const state = { second: -1, spent: 0 };
  const start = 5_000_250; // 250 ms into a second
  assert.equal(admit(state, 400, 300, start), 0);
  assert.equal(admit(state, 400, 300, start + 10), 0); // 300 < 400: admitted, now 600
  assert.equal(admit(state, 400, 1, start + 20), 730); // spent: retry at the next second
  assert.equal(admit(state, 400, 1, start + 749), 1);
  assert.equal(admit(state, 400, 1, start + 750), 0); // the next second starts afresh
});

test("over any run of requests, a second never admits more after its budget is spent", () => {
  for (let trial = 0; trial < 200; trial += 1) {
    const ru = 100 * (1 + (trial % 10));
    const state = { second: -1, spent: 0 };
    let admittedAfterSpent = 0;
    let now = 1_000_000;
    for (let i = 0; i < 300; i += 1) {
      now += (i * 7 + trial) % 13;
      const before = state.second === Math.floor(now / 1000) ? state.spent : 0;
      const charge = 1 + ((i * 31 + trial) % 50);
      if (admit(state, ru, charge, now) === 0 && before >= ru) admittedAfterSpent += 1;
    }
    assert.equal(admittedAfterSpent, 0);
  }
});
