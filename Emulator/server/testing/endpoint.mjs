// An in-process endpoint for the unit tests in test/ that need the whole request path (the compatibility
// layer in front of the server, over HTTPS on a loopback port the operating system picks), and a small client
// for it. It lives outside test/ because `node --test` runs every file under a test/ folder as a test file.
// One endpoint per test file: node --test runs each file in its own process, and the hooks are process-wide.
import { Agent, request as httpsRequest } from "node:https";
import { createEndpointServer } from "../compat/endpoint.mjs";

export async function startEndpoint() {
  // The server logs a line per request on stdout, which the test runner would print as hundreds of
  // diagnostics; errors (console.error) still show.
  console.log = () => {};
  const server = createEndpointServer();
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  // The certificate is self-signed for loopback, as the endpoint's clients accept it.
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

  /** One request; resolves { status, headers, body } with the body parsed when it is JSON. */
  function send(method, path, { body, headers = {} } = {}) {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = httpsRequest({
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(payload ? { "content-length": String(payload.length) } : {}) },
      }, (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          const raw = Buffer.concat(chunks);
          let parsed = raw;
          if (/json/.test(res.headers["content-type"] ?? "") && raw.length > 0) parsed = JSON.parse(raw.toString("utf8"));
          resolve({ status: res.statusCode, headers: res.headers, body: parsed });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  async function close() {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  return { send, close };
}

/** Creates a database and a hash-v2 container partitioned on /pk; fails the test on anything but 201. */
export async function createContainer(send, dbId, collId) {
  const db = await send("POST", "/dbs", { body: { id: dbId } });
  if (db.status !== 201) throw new Error(`database create: ${db.status} ${JSON.stringify(db.body)}`);
  const coll = await send("POST", `/dbs/${dbId}/colls`, { body: { id: collId, partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } } });
  if (coll.status !== 201) throw new Error(`container create: ${coll.status} ${JSON.stringify(coll.body)}`);
}

/** Mulberry32: a small seeded PRNG, so a failing sequence can be replayed from its seed. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
