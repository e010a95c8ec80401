// A person's seat on the Play page, in plain language: the seat's view, "what happened", the
// move history and the end banner. A game's viewer module may export
//   seatView(view, mine)             → nodes: the seat's situation in the game's own words;
//   seatHappened(event, view, mine)  → one or two sentences for this seat, or null to skip;
//   seatMove(action, view, mine)     → the move just sent, in words;
//   seatEnd(results, seat)           → {score, rank, lines[]} for the end banner.
// (`mine`: {seat, alias, aliases by seat, rules: the descriptor's rule_numbers, config,
// options: the descriptor's option schema properties}.)
// The generic renderer below is the fallback (plugins without a seat renderer): it lays the
// view out as labelled facts and small tables — never raw JSON — with numbers rounded.

import { h, fmt, ranks } from "./util.js";

/** A field name's words, whatever its style: snake_case, kebab-case, camelCase and PascalCase
 * split, digits apart from letters (an ordinal such as "2nd" stays whole), an acronym written
 * in capitals kept in capitals ("HTTPStatus" → HTTP, status), every other word lower case.
 * Views carry no labels of their own (the protocol's `visible_state` is the game's JSON), so
 * names are all there is to read. */
export function fieldWords(key) {
  return String(key)
    .replace(/([a-z])([A-Z])/g, "$1 $2") // myTotal → my Total
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2") // HTTPStatus → HTTP Status
    .replace(/([A-Za-z])(\d)/g, "$1 $2") // round2 → round 2
    .replace(/(\d)(?!(?:st|nd|rd|th)(?![a-z]))([A-Za-z])/g, "$1 $2") // 2x → 2 x, but 2nd stays
    .split(/[\s_\-.]+/)
    .filter(Boolean)
    .map((w) => (/^[A-Z][A-Z0-9]*$/.test(w) ? w : w.toLowerCase())); // "A" of playerA too
}

/** Words for running text ("round settled: total 14"). */
const words = (k) => fieldWords(k).join(" ");

/** A field's label: its words, the first capitalized ("my_total_points" → "My total points"). */
export function fieldLabel(k) {
  const text = words(k);
  return text ? text[0].toUpperCase() + text.slice(1) : String(k);
}

/** A field's value as text shows it: a `round` counts from 0 in the data and from 1 in text
 * (as the turn's heading counts it). */
const shown = (k, v) => (k === "round" && Number.isInteger(v) ? v + 1 : v);

/** A scalar as people read it: numbers rounded, booleans yes/no, nothing for null. */
export function plain(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "number") return fmt(v, 2);
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

function isScalar(v) {
  return v === null || ["string", "number", "boolean"].includes(typeof v);
}

/** Fields a view may use for the seat's own index: told as "You are seat N", not "you 0". */
const SELF_KEYS = ["you", "your_seat", "my_seat", "self", "me"];

/** Field names people read better in other words. */
const LABELS = { aliases: "Players" };

/** The seats as the generic view names them (`who`: aliases by seat and the seat's own). */
function seatName(who, i) {
  return `${who.aliases[i] ?? `seat ${i + 1}`}${i === who.me ? " (you)" : ""}`;
}

/** A list with one number (or yes/no, or nothing) per seat, as the table's seats in order. */
function perSeat(arr, who) {
  return who.aliases.length > 1 && arr.length === who.aliases.length
    && arr.every((x) => x === null || typeof x === "number" || typeof x === "boolean");
}

/** An array of flat objects as a small table; a per-seat list named by seat ("Ash (you): 2,
 * Birch: 3"); other arrays as a comma list or nested facts. */
function listNode(arr, depth, who) {
  if (!arr.length) return h("span", { class: "muted" }, "none");
  if (perSeat(arr, who)) return h("span", {}, arr.map((x, i) => `${seatName(who, i)}: ${plain(x)}`).join(", "));
  if (arr.every(isScalar)) return h("span", {}, arr.map(plain).join(", "));
  if (arr.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
    const cols = [...new Set(arr.flatMap((x) => Object.keys(x)))];
    return h("div", { class: "scroll-x" }, h("table", { class: "data" },
      h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, label(c))))),
      h("tbody", {}, arr.map((x) => h("tr", {}, cols.map((c) => h("td", {}, cell(shown(c, x[c]), depth, who))))))));
  }
  return h("ul", {}, arr.map((x) => h("li", {}, cell(x, depth + 1, who))));
}

function cell(v, depth, who) {
  if (isScalar(v)) return plain(v);
  if (Array.isArray(v)) return depth > 2 ? `${v.length} items` : listNode(v, depth + 1, who);
  return depth > 2 ? `${Object.keys(v).length} fields` : facts(v, depth + 1, who);
}

const label = (k) => LABELS[k] ?? fieldLabel(k);

/** JSON Schema types of a value, as a game's option schema names them. */
function schemaType(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v; // string, boolean, object
}

/** The types one option's JSON Schema allows (`type`, or each `anyOf` branch's). */
function optionTypes(prop) {
  const branches = Array.isArray(prop?.anyOf) ? prop.anyOf : [prop ?? {}];
  return branches.flatMap((b) => (Array.isArray(b.type) ? b.type : b.type ? [b.type] : []));
}

/** What the game says of a view's top-level fields: the description of the game's option of
 * the same name (its descriptor's JSON Schema, GET /api/games `options.properties`), where the
 * value is of a type that option takes (a view's list of pledges is not the yes/no option). */
export function fieldHelp(view, options) {
  const help = {};
  for (const [k, v] of Object.entries(view || {})) {
    const prop = options?.[k];
    if (!prop || typeof prop.description !== "string" || v === null) continue;
    const types = optionTypes(prop);
    const t = schemaType(v);
    if (types.includes(t) || (t === "integer" && types.includes("number"))) help[k] = prop.description;
  }
  return help;
}

/** The players' aliases as one line, the seat's own marked. */
function players(v, who) {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? v.map((a, i) => `${a}${i === who.me ? " (you)" : ""}`).join(", ") : null;
}

/** An object as a definition list of its fields (`who`: how seats are named). */
export function facts(obj, depth = 0, who = { aliases: [], me: null }) {
  const help = depth === 0 ? who.help ?? {} : {}; // the game's words for its top-level fields
  return h("dl", { class: "facts" }, Object.entries(obj || {}).flatMap(([k, v]) => [h("dt", { title: help[k] ?? null }, label(k)),
    h("dd", {}, (k === "aliases" && players(v, who)) || cell(shown(k, v), depth, who))]));
}

/** The generic seat view: who you are in a sentence, then the view's fields labelled, with
 * per-seat lists named by seat. The seat's own index (`you`, `your_seat`…) is said, not shown
 * as a bare number. `ctx.options`: the game's option schema properties, whose descriptions
 * explain the fields of the same name on hover. */
export function genericSeatView(view, ctx = {}) {
  const v = view && typeof view === "object" ? view : {};
  const aliases = Array.isArray(ctx.aliases) && ctx.aliases.length ? ctx.aliases
    : Array.isArray(v.aliases) ? v.aliases : [];
  const own = SELF_KEYS.find((k) => Number.isInteger(v[k]));
  const me = own ? v[own] : Number.isInteger(ctx.seat) ? ctx.seat : null;
  const rest = Object.fromEntries(Object.entries(v).filter(([k]) => k !== own));
  const who = { aliases, me, help: fieldHelp(rest, ctx.options) };
  return [me === null ? null : h("p", { "data-testid": "seat-who" }, `You are seat ${me + 1}${aliases[me] ? ` (${aliases[me]})` : ""}.`),
    facts(rest, 0, who)];
}

/** The seat's view: the game's own renderer, else the generic one. */
export function seatPanel(viewer, view, mine) {
  const nodes = viewer?.seatView ? viewer.seatView(view, mine) : genericSeatView(view, mine);
  return h("div", { class: "seatview", "data-testid": "view" }, nodes);
}

/** One public event in words for this seat (`mine`: {seat, alias}); null: nothing to say. */
export function happened(viewer, event, view, mine) {
  if (viewer?.seatHappened) return viewer.seatHappened(event, view, mine);
  const { kind, ...rest } = event;
  const bits = Object.entries(rest).filter(([, v]) => isScalar(v) && v !== null).map(([k, v]) => `${words(k)} ${plain(shown(k, v))}`);
  return `${words(kind)}${bits.length ? `: ${bits.join(", ")}` : ""}.`;
}

/** The move just sent, in words. */
export function moveText(viewer, action, view, ctx) {
  if (viewer?.seatMove) return viewer.seatMove(action, view, ctx);
  return Object.entries(action).filter(([k]) => k !== "type" && k !== "turn_id").map(([k, v]) => `${words(k)}: ${plain(v)}`).join("; ") || "sent";
}

/** Score and rank of `seat` from a results document (per-seat `scores`, or `seats[i].score`). */
export function standing(results, seat) {
  if (typeof results?.scores === "number") return { score: results.scores, rank: null, of: null }; // a seat's own results
  const scores = Array.isArray(results?.scores) ? results.scores
    : Array.isArray(results?.seats) ? results.seats.map((x) => x?.score ?? x?.points ?? null) : null;
  if (!scores || scores[seat] === null || scores[seat] === undefined) return null;
  return { score: scores[seat], rank: ranks(scores)[seat], of: scores.length };
}

/** How many other seats finished with the seat's score as shown (3 decimals): a shared rank
 * is a tie, which "1st of 4" alone would read as an outright win. */
function tiedWith(results, seat, score) {
  const scores = Array.isArray(results?.scores) ? results.scores
    : Array.isArray(results?.seats) ? results.seats.map((x) => x?.points ?? x?.score ?? null) : null;
  if (!scores || typeof score !== "number") return 0;
  const mine = fmt(score, 3);
  return scores.filter((x, i) => i !== seat && typeof x === "number" && fmt(x, 3) === mine).length;
}

/** A score with the game's own word for it (its descriptor's `score_label`): a plural unit
 * reads "6 points", anything else "a median of 6". */
function scored(score, label) {
  const word = typeof label === "string" && label ? label : "points";
  return word.endsWith("s") ? `${fmt(score, 3)} ${word}` : `a ${word} of ${fmt(score, 3)}`;
}

/** The end banner: the reason, your rank and score (`label`: what the game calls its score),
 * the game's own lines, "play again". */
export function endBanner(viewer, results, reason, seat, again, label = "points") {
  const own = viewer?.seatEnd ? viewer.seatEnd(results, seat) : null;
  const st = own ?? standing(results, seat);
  const lines = own?.lines ?? [];
  const tied = st?.rank ? tiedWith(results, seat, st.score) : 0;
  const place = st?.rank ? `${ordinal(st.rank)} of ${st.of}${tied ? `, tied with ${tied} other${tied === 1 ? "" : "s"},` : ""}` : "";
  const head = !st ? "The table is over." : `You finished ${st.rank ? `${place} ` : ""}with ${scored(st.score, label)}.`;
  // not the Theater's `.endcard` (an overlay over its stage): the banner stays in the page's flow
  return h("section", { class: "panel banner play-end", "data-testid": "endcard", "aria-labelledby": "end-h" },
    h("h2", { id: "end-h" }, reason === "complete" ? "Game over" : `Game over (${words(reason)})`),
    h("p", { "data-testid": "end-standing", "data-score": st ? String(st.score) : null, "data-rank": st ? String(st.rank) : null }, head),
    lines.map((l) => h("p", {}, l)), again);
}

export function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th");
  return `${n}${s}`;
}
