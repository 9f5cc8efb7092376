// x-ms-resource-usage (compat/resource-usage.mjs): the stored-bytes total is kept as documents are written, so
// a read reports the same numbers a full measurement of the stored documents would, without one.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { collectionOf } from "../compat/account.mjs";
import { encodeBatchRequest } from "../compat/batch/codec.mjs";
import { snapshotDocuments } from "../compat/documents-snapshot.mjs";
import { trackedUsage } from "../compat/resource-usage.mjs";
import { createContainer, seededRandom, startEndpoint } from "../testing/endpoint.mjs";

let endpoint;
before(async () => {
  endpoint = await startEndpoint();
});
after(() => endpoint.close());

const partitionHeader = (pk) => ({ "x-ms-documentdb-partitionkey": JSON.stringify([pk]) });

// What the header must say: every stored document serialised, measured here independently of the module.
function fullMeasurement(dbId, collId) {
  const { documents } = collectionOf(dbId, collId);
  let bytes = 0;
  for (const item of documents._data.values()) bytes += Buffer.byteLength(JSON.stringify(item.read()));
  const kb = Math.ceil(bytes / 1024);
  const count = documents._data.size;
  return {
    bytes,
    count,
    header: `functions=0;storedProcedures=0;triggers=0;documentSize=${Math.ceil(kb / 1024)};documentsSize=${kb};documentsCount=${count};collectionSize=${kb};`,
  };
}

async function assertUsage(dbId, collId, step) {
  const expected = fullMeasurement(dbId, collId);
  const { documents } = collectionOf(dbId, collId);
  // The exact byte total, which the header's KB would round away, as the writes left it: checked before the
  // read, which would measure the container again if the count were off (and only log it).
  const kept = trackedUsage(documents);
  if (kept !== undefined) assert.deepEqual(kept, { bytes: expected.bytes, count: expected.count }, step);
  const container = await endpoint.send("GET", `/dbs/${dbId}/colls/${collId}`);
  assert.equal(container.status, 200, step);
  assert.equal(container.headers["x-ms-resource-usage"], expected.header, step);
  assert.deepEqual(trackedUsage(documents), { bytes: expected.bytes, count: expected.count }, step);
}

const filler = (random, max) => "x".repeat(Math.floor(random() * max));
const pick = (random, items) => items[Math.floor(random() * items.length)];

/** One random write against the container; returns a description of it for assertion messages. */
async function randomWrite(random, dbId, collId, live, nextId) {
  const docs = `/dbs/${dbId}/colls/${collId}/docs`;
  const { send } = endpoint;
  const existing = [...live.values()];
  const kind = existing.length === 0 ? "create" : pick(random, ["create", "create", "upsert", "replace", "rename", "patch", "patch", "delete", "batch", "failed-batch"]);
  if (kind === "create" || (kind === "upsert" && random() < 0.3)) {
    const doc = { id: `d${nextId()}`, pk: `p${Math.floor(random() * 5)}`, text: filler(random, 3000) };
    const res = await send("POST", docs, { body: doc, headers: { ...partitionHeader(doc.pk), ...(kind === "upsert" ? { "x-ms-documentdb-is-upsert": "true" } : {}) } });
    assert.equal(res.status, 201, `${kind} ${doc.id}`);
    live.set(doc.id, doc);
    return `${kind} ${doc.id} (${doc.text.length})`;
  }
  const target = pick(random, existing);
  const headers = partitionHeader(target.pk);
  switch (kind) {
    case "upsert":
    case "replace": {
      const doc = { ...target, text: filler(random, 3000), more: random() < 0.5 ? filler(random, 500) : undefined };
      const res = kind === "upsert"
        ? await send("POST", docs, { body: doc, headers: { ...headers, "x-ms-documentdb-is-upsert": "true" } })
        : await send("PUT", `${docs}/${target.id}`, { body: doc, headers });
      assert.equal(res.status, 200, `${kind} ${target.id}`);
      live.set(doc.id, doc);
      return `${kind} ${target.id} (${doc.text.length})`;
    }
    case "rename": {
      const doc = { ...target, id: `d${nextId()}` };
      const res = await send("PUT", `${docs}/${target.id}`, { body: doc, headers });
      assert.equal(res.status, 200, `rename ${target.id}`);
      live.delete(target.id);
      live.set(doc.id, doc);
      return `rename ${target.id} -> ${doc.id}`;
    }
    case "patch": {
      const operations = random() < 0.5
        ? [{ op: "set", path: "/patched", value: filler(random, 2000) }]
        : [{ op: "remove", path: "/text" }, { op: "add", path: "/text", value: filler(random, 100) }];
      const res = await send("PATCH", `${docs}/${target.id}`, { body: { operations }, headers });
      assert.equal(res.status, 200, `patch ${target.id}`);
      return `patch ${target.id} (${operations.map((o) => o.op).join("+")})`;
    }
    case "delete": {
      const res = await send("DELETE", `${docs}/${target.id}`, { headers });
      assert.equal(res.status, 204, `delete ${target.id}`);
      live.delete(target.id);
      return `delete ${target.id}`;
    }
    case "batch":
    case "failed-batch": {
      // A transactional batch in the target's partition: a create and a replace; the failing one then creates
      // an id that exists (409), which undoes the other two (documents-snapshot.mjs).
      const created = { id: `d${nextId()}`, pk: target.pk, text: filler(random, 1500) };
      const replaced = { ...target, text: filler(random, 1500) };
      const operations = [
        { operationType: "create", resourceBody: Buffer.from(JSON.stringify(created)) },
        { operationType: "replace", id: target.id, resourceBody: Buffer.from(JSON.stringify(replaced)) },
        ...(kind === "failed-batch" ? [{ operationType: "create", resourceBody: Buffer.from(JSON.stringify(target)) }] : []),
      ];
      const res = await send("POST", docs, {
        body: encodeBatchRequest(operations),
        headers: { ...headers, "x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "True", "content-type": "application/octet-stream" },
      });
      assert.equal(res.status, kind === "batch" ? 200 : 207, kind);
      if (kind === "batch") {
        live.set(created.id, created);
        live.set(replaced.id, replaced);
      }
      return `${kind} in ${target.pk}`;
    }
    default:
      throw new Error(`unknown step ${kind}`);
  }
}

for (const seed of [1, 7, 2026]) {
  test(`seed ${seed}: after every create, upsert, replace, rename, patch, delete and batch the usage is a full measurement's`, async () => {
    const dbId = `usage-${seed}`;
    await createContainer(endpoint.send, dbId, "c");
    await assertUsage(dbId, "c", "empty");
    const random = seededRandom(seed);
    const live = new Map();
    let ids = 0;
    const nextId = () => (ids += 1);
    for (let step = 0; step < 150; step += 1) {
      const what = await randomWrite(random, dbId, "c", live, nextId);
      await assertUsage(dbId, "c", `seed ${seed} step ${step}: ${what}`);
    }
    assert.ok(live.size > 0);
  });
}

test("a point read after a write does not serialise every stored document", async () => {
  const { send } = endpoint;
  await createContainer(send, "usage-scan", "c");
  const docs = "/dbs/usage-scan/colls/c/docs";
  const total = 300;
  for (let i = 0; i < total; i += 1) {
    const res = await send("POST", docs, { body: { id: `d${i}`, pk: `p${i % 7}`, text: "y".repeat(900) }, headers: partitionHeader(`p${i % 7}`) });
    assert.equal(res.status, 201);
  }
  await assertUsage("usage-scan", "c", "filled"); // the first read measures the container once

  const replaced = await send("PUT", `${docs}/d5`, { body: { id: "d5", pk: "p5", text: "z".repeat(2000) }, headers: partitionHeader("p5") });
  assert.equal(replaced.status, 200);

  // Count serialisations during the read alone (its answer and headers), then compare with what a walk would need.
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = function countingStringify(...args) {
    calls += 1;
    return stringify.apply(this, args);
  };
  let read;
  try {
    read = await send("GET", `${docs}/d5`, { headers: partitionHeader("p5") });
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(read.status, 200);
  assert.ok(calls < 10, `the read serialised ${calls} times for ${total} documents`);
  assert.equal(read.headers["x-ms-resource-usage"], fullMeasurement("usage-scan", "c").header);
});

test("an undo outside the write hooks puts the total back with the documents", async () => {
  const { send } = endpoint;
  await createContainer(send, "usage-undo", "c");
  const docs = "/dbs/usage-undo/colls/c/docs";
  for (let i = 0; i < 5; i += 1) {
    await send("POST", docs, { body: { id: `d${i}`, pk: "p", text: "a".repeat(700) }, headers: partitionHeader("p") });
  }
  await assertUsage("usage-undo", "c", "before");
  const restore = snapshotDocuments(collectionOf("usage-undo", "c").documents);
  await send("PUT", `${docs}/d1`, { body: { id: "d1", pk: "p", text: "b".repeat(3000) }, headers: partitionHeader("p") });
  await send("DELETE", `${docs}/d2`, { headers: partitionHeader("p") });
  await send("POST", docs, { body: { id: "d9", pk: "p", text: "c".repeat(5000) }, headers: partitionHeader("p") });
  await assertUsage("usage-undo", "c", "changed");
  restore();
  await assertUsage("usage-undo", "c", "restored");
});
