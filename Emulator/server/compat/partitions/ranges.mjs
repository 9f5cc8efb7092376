// Physical partitions: a container's partition key ranges over the effective-partition-key (EPK) space,
// each with its own LSN, and their splits. Cosmos DB spreads a container over ranges [minInclusive,
// maxExclusive) that together cover "" .. "FF"; a document lives in the range holding its EPK. A split
// replaces a range by two children (new ids, `parents` naming every ancestor) that start at the parent's
// LSN and continue from it, and the parent's id is gone from then on (410/1002 for requests that name it).
//
// How many ranges a new container gets is the endpoint's setting (EMULATOR_PARTITION_RANGES, default
// DEFAULT_RANGE_COUNT); only hash-v2 containers are spread (the .NET SDK creates those), others keep one.
import { partitionValueOf } from "../partition.mjs";
import { effectivePartitionKey, MAX_EPK, MIN_EPK, usesHashV2 } from "./epk.mjs";

export const DEFAULT_RANGE_COUNT = 3;
const EPK_SPACE_END = 1n << 126n; // every hash-v2 EPK is below 40000000...: its top two bits are cleared

function configuredRangeCount() {
  const raw = process.env.EMULATOR_PARTITION_RANGES;
  if (raw === undefined || raw === "") return DEFAULT_RANGE_COUNT;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 64) {
    throw new Error(`EMULATOR_PARTITION_RANGES must be an integer from 1 to 64, not '${raw}'`);
  }
  return count;
}

const toEpk = (value) => (value === 0n ? MIN_EPK : value.toString(16).toUpperCase().padStart(32, "0"));
const fromEpk = (epk, isMax) => (epk === MIN_EPK ? 0n : (isMax && epk === MAX_EPK) ? EPK_SPACE_END : BigInt(`0x${epk}`));

function boundary(index, count) {
  if (index === 0) return MIN_EPK;
  if (index === count) return MAX_EPK;
  return toEpk((EPK_SPACE_END * BigInt(index)) / BigInt(count));
}

/** One container's ranges; created on first use from the container's partition key definition. */
export class RangeLayout {
  constructor(count) {
    this.ranges = []; // live ranges, in EPK order: { id, minInclusive, maxExclusive, parents, lsn }
    this.gone = new Map(); // id of a split range -> its children's ids
    this.nextId = count;
    this.version = 1; // the pkranges feed's etag: changes with every split
    for (let i = 0; i < count; i += 1) {
      this.ranges.push({ id: String(i), minInclusive: boundary(i, count), maxExclusive: boundary(i + 1, count), parents: [], lsn: 0 });
    }
  }

  byId(id) {
    return this.ranges.find((range) => range.id === id);
  }

  /** The live range holding an EPK. */
  rangeOfEpk(epk) {
    return this.ranges.find((range) => range.minInclusive <= epk && epk < range.maxExclusive);
  }

  /** The live ranges overlapping [min, max). */
  overlapping(min, max) {
    return this.ranges.filter((range) => range.minInclusive < max && min < range.maxExclusive);
  }

  /** The highest LSN of any live range: where a write to the container as a whole has got to. */
  get maxLsn() {
    return Math.max(0, ...this.ranges.map((range) => range.lsn));
  }

  /** Splits a live range at the middle of its EPK span; returns the two children. */
  split(id) {
    const index = this.ranges.findIndex((range) => range.id === id);
    if (index < 0) throw new RangeError(this.gone.has(id) ? `range ${id} has already split` : `no range ${id}`);
    const parent = this.ranges[index];
    const low = fromEpk(parent.minInclusive, false);
    const high = fromEpk(parent.maxExclusive, true);
    if (high - low < 2n) throw new RangeError(`range ${id} is too narrow to split`);
    const middle = toEpk(low + (high - low) / 2n);
    const parents = [...parent.parents, parent.id];
    const children = [
      { id: String(this.nextId), minInclusive: parent.minInclusive, maxExclusive: middle, parents, lsn: parent.lsn },
      { id: String(this.nextId + 1), minInclusive: middle, maxExclusive: parent.maxExclusive, parents, lsn: parent.lsn },
    ];
    this.nextId += 2;
    this.ranges.splice(index, 1, ...children);
    this.gone.set(parent.id, children.map((child) => child.id));
    this.version += 1;
    return children;
  }
}

const layouts = new WeakMap(); // the server's Documents store (one per container) -> RangeLayout

/** The ranges of a container's documents store. */
export function layoutOf(documents) {
  let layout = layouts.get(documents);
  if (!layout) {
    const container = documents._parent.read();
    layout = new RangeLayout(usesHashV2(container) ? configuredRangeCount() : 1);
    layouts.set(documents, layout);
  }
  return layout;
}

/** The EPK of a stored document (its partition key value, hash v2). */
export function epkOfDocument(documents, doc) {
  try {
    return effectivePartitionKey(partitionValueOf(documents, doc));
  } catch {
    // A value that cannot be a partition key (an object or array, which Cosmos DB refuses on write and the
    // server stores) hashes as undefined, where the SDK would look for it with PartitionKey.None.
    return effectivePartitionKey(undefined);
  }
}

/** The live range that holds a stored document. */
export const rangeOfDocument = (documents, doc) => layoutOf(documents).rangeOfEpk(epkOfDocument(documents, doc));
