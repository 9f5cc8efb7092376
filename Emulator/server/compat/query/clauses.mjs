// Splits a query's text into its top-level clauses (SELECT list, FROM, WHERE, ORDER BY, OFFSET/LIMIT) by
// scanning for keywords outside strings, brackets and parentheses, so that the clause texts can be put back
// together in the shapes the gateway's query plan uses (plan.mjs). Anything it does not recognise is
// refused by the caller rather than guessed.
export class QueryShapeError extends Error {}

/** Top-level words (upper-cased) with their positions; strings, (), [] and {} are skipped over. */
function topLevelWords(sql) {
  const words = [];
  let depth = 0;
  for (let i = 0; i < sql.length; i += 1) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      for (i += 1; i < sql.length && sql[i] !== ch; i += sql[i] === "\\" ? 2 : 1);
    } else if ("([{".includes(ch)) {
      depth += 1;
    } else if (")]}".includes(ch)) {
      depth -= 1;
    } else if (/[A-Za-z_]/.test(ch) && (i === 0 || !/[\w.@$]/.test(sql[i - 1]))) {
      const match = /^[A-Za-z_]\w*/.exec(sql.slice(i));
      if (depth === 0) words.push({ word: match[0].toUpperCase(), start: i, end: i + match[0].length });
      i += match[0].length - 1;
    }
  }
  return words;
}

/** Splits `text` at top-level commas. */
export function splitTopLevel(text, separator = ",") {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === "'" || ch === '"') {
      for (i += 1; i < text.length && text[i] !== ch; i += text[i] === "\\" ? 2 : 1);
    } else if ("([{".includes(ch)) depth += 1;
    else if (")]}".includes(ch)) depth -= 1;
    else if (ch === separator && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

const COUNT = /^(\d+|@[A-Za-z_]\w*)$/;

/**
 * { top, distinct, value, select, from, where, orderBy: [{ expression, descending }], offset, limit, groupBy }
 * for `SELECT [TOP n] [DISTINCT] [VALUE] ... FROM ... [WHERE ...] [GROUP BY ...] [ORDER BY ...] [OFFSET m LIMIT n]`.
 */
export function parseClauses(sql) {
  const text = sql.trim().replace(/;$/, "");
  const words = topLevelWords(text);
  if (words[0]?.word !== "SELECT" || words[0].start !== 0) throw new QueryShapeError("the query does not start with SELECT");
  let cursor = words[0].end;
  let w = 1;
  const shape = { top: undefined, distinct: false, value: false, groupBy: false, orderBy: [] };
  const next = () => words[w];
  for (;;) {
    const word = next();
    if (word?.word === "TOP" && word.start >= cursor && text.slice(cursor, word.start).trim() === "") {
      const match = /^\s*(\d+|@[A-Za-z_]\w*)/.exec(text.slice(word.end));
      if (!match) throw new QueryShapeError("TOP needs a number or a parameter");
      shape.top = match[1];
      cursor = word.end + match[0].length;
      w += 1;
      while (next() && next().start < cursor) w += 1;
    } else if (word?.word === "DISTINCT" && text.slice(cursor, word.start).trim() === "") {
      shape.distinct = true;
      cursor = word.end;
      w += 1;
    } else if (word?.word === "VALUE" && text.slice(cursor, word.start).trim() === "") {
      shape.value = true;
      cursor = word.end;
      w += 1;
    } else break;
  }
  const at = (name) => words.findIndex((x, i) => i >= w && x.word === name);
  const from = at("FROM");
  if (from < 0) throw new QueryShapeError("the query has no FROM clause");
  shape.select = text.slice(cursor, words[from].start).trim();
  const clauseStarts = ["WHERE", "GROUP", "ORDER", "OFFSET"].map((name) => [name, at(name)]).filter(([, i]) => i > from);
  const end = (index) => {
    const later = clauseStarts.map(([, i]) => i).filter((i) => i > index);
    return later.length ? words[Math.min(...later)].start : text.length;
  };
  shape.from = text.slice(words[from].end, end(from)).trim();
  for (const [name, index] of clauseStarts) {
    const body = text.slice(words[index].end, end(index)).trim();
    if (name === "WHERE") shape.where = body;
    if (name === "GROUP") shape.groupBy = true;
    if (name === "ORDER") {
      if (!/^BY\b/i.test(body)) throw new QueryShapeError("ORDER without BY");
      shape.orderBy = splitTopLevel(body.slice(2).trim()).map((item) => {
        const direction = /\s+(ASC|DESC)$/i.exec(item);
        return {
          expression: direction ? item.slice(0, direction.index).trim() : item,
          descending: direction?.[1].toUpperCase() === "DESC",
        };
      });
    }
    if (name === "OFFSET") {
      const match = /^(\S+)\s+LIMIT\s+(\S+)$/i.exec(body);
      if (!match || !COUNT.test(match[1]) || !COUNT.test(match[2])) throw new QueryShapeError("OFFSET needs LIMIT, each a number or a parameter");
      [, shape.offset, shape.limit] = match;
    }
  }
  return shape;
}

/** The root alias of a FROM clause (`c`, `root r`, `Families AS f`): what `_rid` is read from. */
export function rootAlias(from) {
  const head = from.split(/\s+JOIN\s+/i)[0].trim();
  const match = /^([A-Za-z_]\w*)(?:\s+(?:AS\s+)?([A-Za-z_]\w*))?$/i.exec(head);
  if (!match) throw new QueryShapeError(`the FROM clause '${head}' is not a container with an optional alias`);
  return match[2] ?? match[1];
}

/** The property name a projection gets without an alias (`c.a` -> a, `c["a"]` -> a), or undefined. */
export function impliedName(expression) {
  const dotted = /\.\s*([A-Za-z_]\w*)$/.exec(expression);
  if (dotted) return dotted[1];
  const bracketed = /\[\s*"((?:[^"\\]|\\.)*)"\s*\]$/.exec(expression) ?? /\[\s*'((?:[^'\\]|\\.)*)'\s*\]$/.exec(expression);
  return bracketed?.[1];
}
