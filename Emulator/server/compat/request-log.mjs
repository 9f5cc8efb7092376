// One line per request in the server log, so that a failing test can be traced to the request the SDK made
// and to which side (the server or this layer) answered it. Routes the server does not know are logged with
// the headers that decide routing, because the SDK may send requests nobody expected.
const ROUTING_HEADERS = /^(x-ms-|a-im$|if-none-match$|if-match$|content-type$)/;

export function logRequest(req, res, handledBy) {
  const started = process.hrtime.bigint();
  res.on("finish", () => {
    const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
    const by = handledBy ? ` [compat:${handledBy}]` : "";
    // Which part of the container the request addressed (partitions/scope.mjs), and Cosmos DB's substatus.
    const scope = ["x-ms-documentdb-partitionkeyrangeid", "x-ms-start-epk", "x-ms-end-epk"]
      .filter((name) => req.headers[name]).map((name) => ` ${name.replace(/^x-ms-(documentdb-)?/, "")}=${req.headers[name]}`).join("");
    // A change feed read: the continuation it started from and the one it answered (etags are LSNs).
    const feed = req.headers["a-im"] ? ` from=${req.headers["if-none-match"] ?? "start"} to=${res.getHeader("etag") ?? "-"} items=${res.getHeader("x-ms-item-count") ?? "-"}` : "";
    const subStatus = res.getHeader("x-ms-substatus") ? `/${res.getHeader("x-ms-substatus")}` : "";
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${res.statusCode}${subStatus} ${ms}ms${by}${scope}${feed}`);
  });
}

export function logUnknownRoute(req) {
  const headers = Object.entries(req.headers)
    .filter(([name]) => ROUTING_HEADERS.test(name) && name !== "x-ms-date")
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  console.log(`${new Date().toISOString()} UNKNOWN ROUTE ${req.method} ${req.url} ${headers}`);
}
