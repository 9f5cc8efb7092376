// Gives the compatibility handlers the server's in-memory account. The server builds it privately when it
// starts listening (`new accountModule.default(host, port)` inside its closure) and never exposes it, so the
// constructor it will call is replaced by a subclass that only remembers the instance.
import { accountModule } from "./internals.mjs";

let current;

export function captureAccount() {
  const ServerAccount = accountModule.default;
  accountModule.default = class CapturedAccount extends ServerAccount {
    constructor(...args) {
      super(...args);
      current = this;
    }
  };
}

/** The server's account (databases, their collections and documents). */
export function currentAccount() {
  if (!current) {
    throw new Error("the server has not created its account yet (not listening?)");
  }
  return current;
}

/** The collection (container) item for ids or RIDs; `.read()` is undefined when it does not exist. */
export function collectionOf(dbId, collId) {
  return currentAccount().database(dbId).collection(collId);
}
