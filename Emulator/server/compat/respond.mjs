// Writes a response the way the server's own request handler does (same headers, JSON body), so that a
// request answered by the compatibility layer looks to the SDK like any other.
import { randomUUID } from "node:crypto";

/**
 * @param {import("node:http").ServerResponse} res
 * @param {number} statusCode
 * @param {unknown} [body] serialized as JSON; omitted for 204/304
 * @param {Record<string, string>} [headers]
 */
export function send(res, statusCode, body, headers = {}) {
  res.statusCode = statusCode;
  for (const [name, value] of Object.entries(headers)) {
    res.setHeader(name, value);
  }
  if (body && typeof body === "object" && body._etag && !res.hasHeader("etag")) {
    res.setHeader("etag", body._etag);
  }
  res.setHeader("content-type", "application/json");
  res.setHeader("x-ms-activity-id", randomUUID());
  res.setHeader("x-ms-request-charge", "1");
  // 204 and 304 must not carry a body; everything else is JSON like the server's own answers.
  const hasBody = body !== undefined && statusCode !== 204 && statusCode !== 304;
  res.end(hasBody ? JSON.stringify(body) : undefined);
}

export const notFound = (res) =>
  send(res, 404, { code: "NotFound", message: "Entity with the specified id does not exist in the system." });

export const badRequest = (res, message) => send(res, 400, { code: "BadRequest", message });

/** A request header as one string (Node gives arrays for repeated headers). */
export function header(req, name) {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** True when a header is present with the value "true" (any case), as the SDK sends flags. */
export const isTrue = (req, name) => (header(req, name) ?? "").toLowerCase() === "true";
