// Physical partitions: a container's partition key ranges over the effective-partition-key (EPK) space,
// each with its own LSN, and their splits. Cosmos DB spreads a container over ranges [minInclusive,
// maxExclusive) that together cover "" .. "FF"; a document lives in the range holding its EPK. A split
// replaces a range by two children (new ids, `parents` naming every ancestor) that start at the parent's
// LSN and continue from it, and the parent's id is gone from then on (410/1002 for requests that name it).
//
// How many ranges a hash-v2 container gets: as many as its throughput needs (Cosmos DB gives a physical
// partition about 10,000 RU/s: EMULATOR_RU_PER_RANGE, default DEFAULT_RU_PER_RANGE, so 25,000 RU/s is 3 ranges),
// and at least the endpoint's setting (EMULATOR_PARTITION_RANGES, default DEFAULT_RANGE_COUNT), so every test
// runs across ranges. Raising the throughput above what the ranges carry splits the widest ranges until they do
// (growForThroughput), as Cosmos DB splits partitions. A hash-v1 container gets the ranges its throughput
// needs (400 RU/s: one), cut evenly over the v1 hash space (epk-v1.mjs), and splits at the middle of a range's hash
// values (on a throughput raise and on request), as Cosmos DB splits v1 containers. A
// container without a partition key of its own (system key) keeps one range.
import { currentAccount } from "../account.mjs";
import { onThroughputChange, ownThroughput } from "../offers.mjs";
import { isNonPartitioned } from "../containers.mjs";
import { isHierarchical, partitionValueOf } from "../partition.mjs";
import { boundaryV1, effectivePartitionKeyV1, hashBoundaryV1, hashOfBoundaryV1 } from "./epk-v1.mjs";
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

export const DEFAULT_RU_PER_RANGE = 10_000;

function ruPerRange() {
  const raw = process.env.EMULATOR_RU_PER_RANGE;
  if (raw === undefined || raw === "") return DEFAULT_RU_PER_RANGE;
  const ru = Number(raw);
  if (!Number.isInteger(ru) || ru < 100) throw new Error(`EMULATOR_RU_PER_RANGE must be an integer of at least 100, not '${raw}'`);
  return ru;
}

/** The ranges a throughput needs: one per started `perRange` RU/s, at least one. */
export const rangesForThroughput = (ru, perRange = ruPerRange()) => Math.max(1, Math.ceil((ru ?? 0) / perRange));

const toEpk = (value) => (value === 0n ? MIN_EPK : value.toString(16).toUpperCase().padStart(32, "0"));
const fromEpk = (epk, isMax) => (epk === MIN_EPK ? 0n : (isMax && epk === MAX_EPK) ? EPK_SPACE_END : BigInt(`0x${epk}`));

function boundary(index, count) {
  if (index === 0) return MIN_EPK;
  if (index === count) return MAX_EPK;
  return toEpk((EPK_SPACE_END * BigInt(index)) / BigInt(count));
}

function boundaryOfHashV1(index, count) {
  if (index === 0) return MIN_EPK;
  if (index === count) return MAX_EPK;
  return boundaryV1(index, count);
}

const usesHashV1 = (container) => !usesHashV2(container) && !isNonPartitioned(container);

/**
 * The EPK of a partition key value in a container, by its hash version. A hierarchical key's value is the array of
 * its values (or of a prefix of them): its EPK is the hash-v2 EPKs of the values one after another, as Cosmos DB
 * and the SDK compute it (MultiHash), so a prefix's EPK is where its logical partitions start and every full key
 * under it sorts below the prefix's EPK + "FF" (the SDK's EPK range for a prefix).
 */
export function epkOf(container, value) {
  if (isHierarchical(container)) {
    const values = Array.isArray(value) ? value : [value];
    return values.map((component) => effectivePartitionKey(component)).join("");
  }
  return usesHashV2(container) ? effectivePartitionKey(value) : effectivePartitionKeyV1(value);
}

/** One container's ranges; created on first use from the container's partition key definition. */
export class RangeLayout {
  /** @param {(index: number, count: number) => string} cut the EPK where range `index` starts (hash v2 by default) */
  constructor(count, cut = boundary) {
    // A hash-v1 layout's EPKs are not fixed-width numbers: its ranges split at the middle of their hash values.
    this.hashV1 = cut === boundaryOfHashV1;
    this.ranges = []; // live ranges, in EPK order: { id, minInclusive, maxExclusive, parents, lsn }
    this.gone = new Map(); // id of a split range -> its children's ids
    this.nextId = count;
    this.version = 1; // the pkranges feed's etag: changes with every split
    for (let i = 0; i < count; i += 1) {
      this.ranges.push({ id: String(i), minInclusive: cut(i, count), maxExclusive: cut(i + 1, count), parents: [], lsn: 0 });
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
    const middle = this.hashV1 ? middleOfHashV1(parent) : middleOfHashV2(parent);
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

// Where a hash-v2 range splits: the middle of its EPKs (fixed-width numbers below 2^126).
function middleOfHashV2(range) {
  const low = fromEpk(range.minInclusive, false);
  const high = fromEpk(range.maxExclusive, true);
  if (high - low < 2n) throw new RangeError(`range ${range.id} is too narrow to split`);
  return toEpk(low + (high - low) / 2n);
}

// Where a hash-v1 range splits: at the middle of the hash values it holds (its boundaries are the number encodings
// of hashes, epk-v1.mjs), so the SDK, which computes v1 EPKs itself, finds each key in one child.
function middleOfHashV1(range) {
  const low = hashOfBoundaryV1(range.minInclusive);
  const high = hashOfBoundaryV1(range.maxExclusive);
  if (high - low < 2) throw new RangeError(`range ${range.id} is too narrow to split`);
  return hashBoundaryV1(Math.floor(low + (high - low) / 2));
}

/** A hash-v1 container's layout of `count` ranges, cut evenly over the v1 hash space. */
export const hashV1Layout = (count) => new RangeLayout(count, boundaryOfHashV1);

const layouts = new WeakMap(); // the server's Documents store (one per container) -> RangeLayout

/** The ranges of a container's documents store. */
export function layoutOf(documents) {
  let layout = layouts.get(documents);
  if (!layout) {
    const container = documents._parent.read();
    if (usesHashV2(container)) layout = new RangeLayout(Math.max(configuredRangeCount(), rangesForThroughput(ownThroughput(container))));
    else if (usesHashV1(container)) layout = hashV1Layout(rangesForThroughput(ownThroughput(container)));
    else layout = new RangeLayout(1);
    layouts.set(documents, layout);
  }
  return layout;
}


/**
 * After a throughput change: splits the widest live ranges of a hash-v2 container until there are as many as
 * `ru` needs. Returns the ranges that split (none when the container has not been used yet: its layout is then
 * made with the new count).
 */
export function growForThroughput(documents, ru) {
  const layout = layouts.get(documents);
  if (!layout || !(usesHashV2(documents._parent.read()) || layout.hashV1)) return [];
  const split = [];
  const width = layout.hashV1
    ? (range) => BigInt(hashOfBoundaryV1(range.maxExclusive) - hashOfBoundaryV1(range.minInclusive))
    : (range) => fromEpk(range.maxExclusive, true) - fromEpk(range.minInclusive, false);
  while (layout.ranges.length < rangesForThroughput(ru)) {
    const widest = layout.ranges.reduce((best, range) => (width(range) > width(best) ? range : best));
    layout.split(widest.id);
    split.push(widest.id);
  }
  return split;
}

/** The EPK of a stored document (its partition key value, by the container's hash version). */
export function epkOfDocument(documents, doc) {
  let epk = epkByDocument.get(doc);
  if (epk === undefined) {
    epk = computeEpkOfDocument(documents, doc);
    epkByDocument.set(doc, epk);
  }
  return epk;
}

// Every request scoped to a range or an EPK slice (change feed pages, range queries, the estimator) tests every
// document of the container for membership (scope.mjs). Hashing each document's key on every such request cost the
// one thread 18-24 ms per request at 12,000 documents and 44-55 ms at 30,000 (2.4 and 13 ms with each hashed once),
// which bound migration runs with several instances (issue 36). A document's EPK never changes: a write stores a new
// object, and a container's partition key definition is fixed at its creation; so it is hashed once per stored
// object, as write-sequence.mjs keeps each object's LSN.
const epkByDocument = new WeakMap();

function computeEpkOfDocument(documents, doc) {
  const container = documents._parent.read();
  try {
    return epkOf(container, partitionValueOf(documents, doc));
  } catch {
    // A value that cannot be a partition key (an object or array, which Cosmos DB refuses on write and the
    // server stores) hashes as undefined, where the SDK would look for it with PartitionKey.None.
    return epkOf(container, undefined);
  }
}

/** The live range that holds a stored document. */
export const rangeOfDocument = (documents, doc) => layoutOf(documents).rangeOfEpk(epkOfDocument(documents, doc));

// A container's offer replaced: its ranges grow with its throughput (a database's shared offer splits nothing).
onThroughputChange((rid, ru) => {
  for (const database of currentAccount().databases._data.values()) {
    for (const collection of database.collections._data.values()) {
      if (collection.read()._rid === rid) growForThroughput(collection.documents, ru);
    }
  }
});
