// Error answers with a message. Several of the server's handlers answer 404 (and a few 409/412) with an empty
// body, to which it adds `"message": ""`; Cosmos DB always says what went wrong, and the SDK puts that text
// into the CosmosException a user sees. The standard texts of the service are filled in where it is empty.
const STANDARD = {
  400: ["BadRequest", "The request is invalid."],
  404: ["NotFound", "Entity with the specified id does not exist in the system."],
  409: ["Conflict", "Entity with the specified id already exists in the system."],
  412: ["PreconditionFailed", "Operation cannot be performed because one of the specified precondition is not met."],
};

export function fillEmptyErrorMessages(res) {
  const end = res.end;
  res.end = function endWithMessage(chunk, ...rest) {
    const standard = STANDARD[res.statusCode];
    if (standard && typeof chunk === "string" && chunk.startsWith("{")) {
      try {
        const body = JSON.parse(chunk);
        if (body && typeof body === "object" && !body.message) {
          const [code, message] = standard;
          return end.call(this, JSON.stringify({ code: body.code ?? code, ...body, message }), ...rest);
        }
      } catch {
        // Not JSON after all: sent as it is.
      }
    }
    return end.call(this, chunk, ...rest);
  };
}
