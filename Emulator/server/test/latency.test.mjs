// EMULATOR_LATENCY_MS (compat/latency.mjs): requests on documents are answered that much later, on a timer, so
// other requests are served meanwhile. Times are checked only from below (a loaded machine is only slower).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { configuredLatencyMs, MAX_LATENCY_MS } from "../compat/latency.mjs";
import { createContainer, startEndpoint } from "../testing/endpoint.mjs";

const LATENCY_MS = 200;
let endpoint;
before(async () => {
  process.env.EMULATOR_LATENCY_MS = String(LATENCY_MS); // read once, when the endpoint is built
  endpoint = await startEndpoint();
  await createContainer(endpoint.send, "latency", "c");
});
after(() => endpoint.close());

test("unset or empty is off; a whole number of milliseconds is taken; anything else is refused", () => {
  assert.equal(configuredLatencyMs({}), 0);
  assert.equal(configuredLatencyMs({ EMULATOR_LATENCY_MS: "" }), 0);
  assert.equal(configuredLatencyMs({ EMULATOR_LATENCY_MS: "0" }), 0);
  assert.equal(configuredLatencyMs({ EMULATOR_LATENCY_MS: "50" }), 50);
  assert.equal(configuredLatencyMs({ EMULATOR_LATENCY_MS: String(MAX_LATENCY_MS) }), MAX_LATENCY_MS);
  for (const bad of ["-1", "1.5", "50ms", " 5", "abc", "1e3", String(MAX_LATENCY_MS + 1)]) {
    assert.throws(() => configuredLatencyMs({ EMULATOR_LATENCY_MS: bad }), /EMULATOR_LATENCY_MS must be a whole number of milliseconds/, bad);
  }
});

const pk = { "x-ms-documentdb-partitionkey": JSON.stringify(["p"]) };

async function timed(request) {
  const started = process.hrtime.bigint();
  const res = await request();
  return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 };
}

test("every request on documents is answered no sooner than the latency", async () => {
  const docs = "/dbs/latency/colls/c/docs";
  const { send } = endpoint;
  const steps = [
    ["create", () => send("POST", docs, { body: { id: "a", pk: "p", v: 1 }, headers: pk }), 201],
    ["read", () => send("GET", `${docs}/a`, { headers: pk }), 200],
    ["replace", () => send("PUT", `${docs}/a`, { body: { id: "a", pk: "p", v: 2 }, headers: pk }), 200],
    ["query", () => send("POST", docs, {
      body: { query: "SELECT * FROM c", parameters: [] },
      headers: { ...pk, "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" },
    }), 200],
    ["missing", () => send("GET", `${docs}/nope`, { headers: pk }), 404],
    ["delete", () => send("DELETE", `${docs}/a`, { headers: pk }), 204],
  ];
  for (const [name, request, status] of steps) {
    const { res, ms } = await timed(request);
    assert.equal(res.status, status, name);
    assert.ok(ms >= LATENCY_MS - 5, `${name} answered after ${ms.toFixed(1)} ms`);
  }
});

test("a held request does not hold the server: a container read and a control request sent after it are answered first", async () => {
  const { send } = endpoint;
  const order = [];
  const held = send("GET", "/dbs/latency/colls/c/docs/a", { headers: pk }).then((res) => order.push(["document", res.status]));
  const container = send("GET", "/dbs/latency/colls/c").then((res) => order.push(["container", res.status]));
  const control = send("POST", "/_emulator/dbs/latency/colls/c/throughput", { body: { enforce: false } })
    .then((res) => order.push(["control", res.status]));
  await Promise.all([held, container, control]);
  assert.deepEqual(order.at(-1), ["document", 404]);
  assert.deepEqual(order.slice(0, 2).map(([what]) => what).sort(), ["container", "control"]);
  assert.ok(order.slice(0, 2).every(([, status]) => status === 200), JSON.stringify(order));
});
