// ORDER BY resumption. Resuming a cross-partition ORDER BY query from a continuation token, the .NET SDK
// sends each range the plan's rewritten query with a `resumeFilter` in the body: `value` (the sort values
// it stopped at; undefined as `[]`, arrays and objects as a `{type, low, high}` hash), `exclude` (true for
// ranges left of the one it stopped in: only rows after the values) and, for that range, `rid` (the row it
// stopped at: rows with equal values resume from that document in the SDK's document order, order-by-rows.mjs,
// and the SDK skips what it already returned). Cosmos DB applies the filter before paging; so does this endpoint,
// over rows already in the SDK's order. The rid is compared by position, not looked up: after a split, or once
// the document is deleted, the range no longer holds it, and the ties after it must still come back.
import { parseClauses } from "./clauses.mjs";
import { compareValues, documentOrder } from "./order-by-rows.mjs";

/** A resume value as the SDK serialises it, decoded to { value } or, for arrays and objects, a stand-in of their type. */
function decode(resume) {
  if (Array.isArray(resume) && resume.length === 0) return undefined;
  if (resume !== null && typeof resume === "object" && resume.type === "array") return [];
  if (resume !== null && typeof resume === "object" && resume.type === "object") return {};
  return resume;
}

/** Applies a request's resume filter to the rows of a rewritten ORDER BY query (already in the SDK's order). */
export function applyResumeFilter(rows, sql, resumeFilter) {
  const descending = parseClauses(sql).orderBy.map((o) => o.descending);
  const resume = (resumeFilter.value ?? []).map(decode);
  if (resume.length !== descending.length) {
    throw Object.assign(new Error(`the resume filter has ${resume.length} values for ${descending.length} ORDER BY items`), { badRequest: true });
  }
  const position = (row) => {
    for (let i = 0; i < resume.length; i += 1) {
      const c = compareValues(row.orderByItems?.[i]?.item, resume[i]) * (descending[i] ? -1 : 1);
      if (c !== 0) return c;
    }
    return 0;
  };
  const resumeDocument = resumeFilter.rid ? documentOrder(resumeFilter.rid) : undefined;
  const ridSign = descending[0] ? -1 : 1;
  return rows.filter((row) => {
    const c = position(row);
    if (c !== 0) return c > 0;
    if (resumeFilter.exclude) return false;
    if (resumeDocument === undefined) return true;
    const document = documentOrder(row._rid);
    return document === resumeDocument || (document > resumeDocument ? 1 : -1) * ridSign > 0;
  });
}
