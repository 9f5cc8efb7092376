// ORDER BY resumption. Resuming a cross-partition ORDER BY query from a continuation token, the .NET SDK
// sends each range the plan's rewritten query with a `resumeFilter` in the body: `value` (the sort values
// it stopped at; undefined as `[]`, arrays and objects as a `{type, low, high}` hash), `exclude` (true for
// ranges left of the one it stopped in: only rows after the values) and, for that range, `rid` (the row it
// stopped at: rows with equal values resume from it, and the SDK skips what it already returned). Cosmos
// DB applies the filter before paging; so does this endpoint, over the engine's sorted result.
import { parseClauses } from "./clauses.mjs";

const RANK = { undefined: 0, null: 1, boolean: 2, number: 3, string: 4, array: 5, object: 6 };

function typeOf(value) {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A resume value as the SDK serialises it, decoded to { rank, value } (complex values compare by type only). */
function decode(resume) {
  if (Array.isArray(resume) && resume.length === 0) return { rank: RANK.undefined };
  if (resume !== null && typeof resume === "object" && (resume.type === "array" || resume.type === "object")) {
    return { rank: RANK[resume.type], complex: true };
  }
  return { rank: RANK[typeOf(resume)], value: resume };
}

function compare(value, resume) {
  const rank = RANK[typeOf(value)];
  if (rank !== resume.rank) return rank < resume.rank ? -1 : 1;
  if (resume.complex || rank <= RANK.null) return 0;
  if (value === resume.value) return 0;
  return value < resume.value ? -1 : 1;
}

/** Applies a request's resume filter to the rows of a rewritten ORDER BY query (already in sort order). */
export function applyResumeFilter(rows, sql, resumeFilter) {
  const descending = parseClauses(sql).orderBy.map((o) => o.descending);
  const resume = (resumeFilter.value ?? []).map(decode);
  if (resume.length !== descending.length) {
    throw Object.assign(new Error(`the resume filter has ${resume.length} values for ${descending.length} ORDER BY items`), { badRequest: true });
  }
  const position = (row) => {
    for (let i = 0; i < resume.length; i += 1) {
      const c = compare(row.orderByItems?.[i]?.item, resume[i]) * (descending[i] ? -1 : 1);
      if (c !== 0) return c;
    }
    return 0;
  };
  let reachedRid = !resumeFilter.rid;
  return rows.filter((row) => {
    const c = position(row);
    if (c !== 0) return c > 0;
    if (resumeFilter.exclude) return false;
    reachedRid ||= row._rid === resumeFilter.rid;
    return reachedRid;
  });
}
