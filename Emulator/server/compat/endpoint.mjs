// Builds the endpoint: @vercel/cosmosdb-server with the compatibility layer in front of it. Shared by
// start.mjs and the unit tests that talk to a real server over HTTPS, so both run exactly the same layer.
import { captureAccount } from "./account.mjs";
import { installBetween } from "./between.mjs";
import { createLoopbackCertificate } from "./certificate.mjs";
import { installCompatibility } from "./install.mjs";
import { createHttpsServer } from "./internals.mjs";
import { installOrderByUndefined } from "./order-by.mjs";
import { installPartitionStorageKeys } from "./partition.mjs";
import { installQueryExtensions } from "./query-extensions.mjs";
import { installResourceUsage } from "./resource-usage.mjs";
import { installUrlSafeResourceIds } from "./resource-ids.mjs";
import { installWriteSequence } from "./write-sequence.mjs";

let hooksInstalled = false;

/** An HTTPS server (not listening yet) with every hook in place. One per process: the account is the process's. */
export function createEndpointServer() {
  // The hooks wrap the server's classes process-wide, so wrapping twice would count every write twice.
  if (hooksInstalled) throw new Error("createEndpointServer: the endpoint's hooks are already installed in this process");
  hooksInstalled = true;
  // The hooks must be in place before the server builds its account and stores any document.
  captureAccount();
  installUrlSafeResourceIds();
  installPartitionStorageKeys();
  installWriteSequence();
  installResourceUsage();
  installQueryExtensions();
  installOrderByUndefined();
  installBetween();

  // keepAlive: the server otherwise sends `connection: close`, and the SDK would pay a TLS handshake per request.
  const server = createHttpsServer({ ...createLoopbackCertificate(), keepAlive: true });
  installCompatibility(server);
  // Idle connections outlive the .NET client's pool timeout, so the client never reuses a socket that the
  // server is closing at that very moment.
  server.keepAliveTimeout = 130_000;
  server.headersTimeout = 135_000;
  return server;
}
