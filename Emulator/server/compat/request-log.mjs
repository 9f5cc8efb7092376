// One line per request in the server log, so that a failing test can be traced to the request the SDK made
// and to which side (the server or this layer) answered it. Routes the server does not know are logged with
// the headers that decide routing, because the SDK may send requests nobody expected.
const ROUTING_HEADERS = /^(x-ms-|a-im$|if-none-match$|if-match$|content-type$)/;

export function logRequest(req, res, handledBy) {
  const started = process.hrtime.bigint();
  res.on("finish", () => {
    const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
    const by = handledBy ? ` [compat:${handledBy}]` : "";
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${res.statusCode} ${ms}ms${by}`);
  });
}

export function logUnknownRoute(req) {
  const headers = Object.entries(req.headers)
    .filter(([name]) => ROUTING_HEADERS.test(name) && name !== "x-ms-date")
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  console.log(`${new Date().toISOString()} UNKNOWN ROUTE ${req.method} ${req.url} ${headers}`);
}
