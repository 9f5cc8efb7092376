// Starts the local Cosmos DB endpoint for the integration tests: @vercel/cosmosdb-server (through its
// library entry point) with the project's compatibility layer (./compat) in front of it.
//
//   node start.mjs [--host 127.0.0.1] [--port 0] [--ready-file <path>] [--enforce-throughput]
//
// --enforce-throughput (or EMULATOR_ENFORCE_THROUGHPUT=1): containers with provisioned throughput answer 429
// once their request units per second are spent (compat/throughput.mjs).
// EMULATOR_LATENCY_MS=<ms> (default 0, off): every request on documents is answered that much later, as across
// a network (compat/latency.mjs).
//
// Port 0 lets the operating system pick a free port, with no window in which another process could take
// it. Once listening, the endpoint, port and process id are written as JSON to --ready-file (if given) and
// printed. SIGTERM / SIGINT close the server.
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createEndpointServer } from "./compat/endpoint.mjs";

const { values: args } = parseArgs({
  options: {
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "0" },
    "ready-file": { type: "string" },
    "enforce-throughput": { type: "boolean", default: false },
  },
});
if (args["enforce-throughput"]) process.env.EMULATOR_ENFORCE_THROUGHPUT = "1";

const server = createEndpointServer();

server.on("error", (err) => {
  console.error(`cosmos emulator: ${err.message}`);
  process.exit(1);
});

server.listen(Number.parseInt(args.port, 10), args.host, () => {
  const { port } = server.address();
  const host = args.host.includes(":") ? `[${args.host}]` : args.host;
  const ready = { endpoint: `https://${host}:${port}/`, port, pid: process.pid };
  if (args["ready-file"]) {
    writeFileSync(args["ready-file"], `${JSON.stringify(ready)}\n`);
  }
  console.log(`cosmos emulator listening: ${JSON.stringify(ready)}`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.log(`cosmos emulator: ${signal}, stopping`);
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
