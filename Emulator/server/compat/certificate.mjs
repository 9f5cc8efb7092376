// A fresh self-signed certificate for loopback, made at every start: the one bundled with the server has
// expired. Node cannot issue X.509 certificates itself, so the OpenSSL command-line tool does it (P-256 keys
// make each TLS handshake cheap). Clients accept it only because the endpoint is loopback.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function createLoopbackCertificate() {
  const dir = mkdtempSync(join(tmpdir(), "cosmos-emulator-cert-"));
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  try {
    execFileSync("openssl", [
      "req", "-x509", "-nodes",
      "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
      "-days", "30",
      "-subj", "/CN=localhost",
      "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
      "-keyout", keyPath,
      "-out", certPath,
    ], { stdio: ["ignore", "ignore", "pipe"] });
    return { key: readFileSync(keyPath), cert: readFileSync(certPath) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
