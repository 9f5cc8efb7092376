// Two patch refusals of Cosmos DB that the server misses, found by comparing it with the library's in-process patch
// (PatchApplierConformanceTests):
// - A writing operation (add, set, incr, move's target) needs an existing parent: "Add Operation can only create a
//   child object of an existing node (array or object) and can't create path recursively." The server checks every
//   step above the parent but not the parent itself: with the parent missing and the grandparent present it wrote
//   into the grandparent (`set /missing/x 1` stored `x` at the root).
// - An increment of a value that exists but is not a number is refused; the server took null for a missing value.
// This walks the operations in order over a copy of the document, tracking what exists, and names the first
// operation refused so; everything else stays the server's to decide.

const WRITES = new Set(["add", "set", "incr", "move"]);

function segmentsOf(path) {
  return path.slice(1).split("/").map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function resolve(doc, segments) {
  let current = doc;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      const index = Number(segment);
      current = Number.isInteger(index) && index >= 0 && index < current.length ? current[index] : undefined;
    } else if (current !== null && typeof current === "object" && Object.prototype.hasOwnProperty.call(current, segment)) {
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

function isContainer(value) {
  return value !== null && typeof value === "object";
}

// Applies the structure of one operation to the copy (values as given; an increment leaves a number). Operations the
// server will refuse for other reasons may be approximated: the whole patch fails then anyway.
function track(doc, operation) {
  const segments = segmentsOf(operation.path);
  const key = segments[segments.length - 1];
  if (operation.op === "move") {
    const from = segmentsOf(operation.from);
    const value = resolve(doc, from);
    remove(doc, from);
    write(doc, segments, value, "add");
    return;
  }
  if (operation.op === "remove") {
    remove(doc, segments);
    return;
  }
  const parent = resolve(doc, segments.slice(0, -1));
  if (operation.op === "incr" && !Array.isArray(parent)) {
    parent[key] = typeof parent[key] === "number" ? parent[key] + operation.value : operation.value;
    return;
  }
  write(doc, segments, operation.value, operation.op);
}

function write(doc, segments, value, op) {
  const parent = resolve(doc, segments.slice(0, -1));
  const key = segments[segments.length - 1];
  if (!Array.isArray(parent)) {
    parent[key] = structuredClone(value);
  } else if (key === "-") {
    parent.push(structuredClone(value));
  } else if (op === "add") {
    parent.splice(Number(key), 0, structuredClone(value));
  } else {
    parent[Number(key)] = structuredClone(value);
  }
}

function remove(doc, segments) {
  const parent = resolve(doc, segments.slice(0, -1));
  const key = segments[segments.length - 1];
  if (Array.isArray(parent)) {
    parent.splice(Number(key), 1);
  } else if (isContainer(parent)) {
    delete parent[key];
  }
}

/**
 * The message of Cosmos DB's refusal for the first operation refused as above when it runs, or undefined (an
 * operation that fails otherwise is the server's to report).
 * @param {object} doc the stored document
 * @param {Array<{op: string, path: string, from?: string, value?: unknown}>} operations
 */
export function patchRefusal(doc, operations) {
  const copy = structuredClone(doc);
  for (const operation of operations) {
    if (typeof operation?.path !== "string" || !operation.path.startsWith("/")) {
      return undefined;
    }
    if (WRITES.has(operation.op) && !isContainer(resolve(copy, segmentsOf(operation.path).slice(0, -1)))) {
      return "Add Operation can only create a child object of an existing node (array or object) and can't create path recursively.";
    }
    if (operation.op === "incr" && resolve(copy, segmentsOf(operation.path)) === null) {
      return "Increment Operation can only be applied to a numeric value; the current value is null.";
    }
    if (operation.op === "move" && (typeof operation.from !== "string" || resolve(copy, segmentsOf(operation.from)) === undefined)) {
      return undefined;
    }
    try {
      track(copy, operation);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
