// Small DOM and formatting helpers shared by every page. No framework: elements are built
// with h() (HTML) and s() (SVG); text always goes through textContent, never innerHTML, since
// aliases, notes and chat lines come from seats and are untrusted.

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: h("div", {class: "x"}, child, "text"). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element: s("circle", {cx: 1, cy: 2, r: 3}). */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** An <svg> sized in CSS pixels (width × height user units, scaled to the container width). */
export function svgRoot(width, height, attrs = {}) {
  return s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", ...attrs });
}

/** Numbers as people read them: integers plain, else up to `dp` decimals without trailing 0s. */
export function fmt(x, dp = 2) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (Number.isInteger(x)) return String(x);
  return String(Number(x.toFixed(dp)));
}

/** The value a results document shows, rounded the way the game's results are (e.g. 3 dp). */
export function round(x, dp) {
  const f = 10 ** dp;
  return Math.round((x + Number.EPSILON) * f) / f;
}

export function median(values) {
  if (!values.length) return 0;
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export function mean(values) {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

export function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

/** Competition ranking (1, 1, 3): higher is better. Returns rank per index. */
export function ranks(values) {
  return values.map((v) => 1 + values.filter((w) => w > v).length);
}

/** Indices ordered best first (ties keep seat order). */
export function order(values) {
  return values.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((p) => p[1]);
}

/** Eight distinct, colour-blind-friendlier hues for seats (by seat index). */
export const SEAT_COLOURS = ["#6ea8ff", "#f5a35c", "#b48cff", "#4fd1c5", "#f07aa8", "#c9d65b",
  "#ff7f6e", "#7fd37f", "#e0c36a", "#8ab4d8", "#d68cd0", "#9ad0a0"];

export function seatColour(i) {
  return SEAT_COLOURS[i % SEAT_COLOURS.length];
}

export async function fetchJSON(url, options) {
  const res = await fetch(url, { headers: { Accept: "application/json" }, ...options });
  if (!res.ok) {
    let detail = `${res.status} ${res.statusText}`, code;
    try {
      const body = await res.json();
      detail = body?.error?.message || body?.detail || detail;
      code = body?.error?.code;
    } catch { /* not JSON */ }
    const retryAfter = Number(res.headers.get("Retry-After")) || undefined; // a 429's wait, in seconds
    throw Object.assign(new Error(`${url}: ${detail}`), { status: res.status, code, retryAfter });
  }
  return res.json();
}

/** A failed request's message for a form's error line: without the request path
 * `fetchJSON` puts first (`/tables/ID/join: …`), which says nothing to a person. */
export function problemText(err) {
  return String(err?.message || err).replace(/^\/\S*: /, "");
}

/** Mark the current page in the header navigation, and offer the League page there when the
 * server hosts a season (`GET /api/season`; the League pages link it themselves). */
export function markNav() {
  const page = document.body.dataset.page;
  for (const a of document.querySelectorAll("[data-nav]")) {
    a.classList.toggle("on", a.dataset.nav === page);
  }
  const after = document.querySelector("header nav [data-nav=observatory]");
  if (!after || document.querySelector("[data-nav=league]")) return;
  fetch("/api/season", { headers: { Accept: "application/json" } })
    .then((res) => (res.ok ? res.json() : { season: null }))
    .then((doc) => {
      if (!doc.season || document.querySelector("[data-nav=league]")) return;
      const link = document.createElement("a");
      link.href = "/league";
      link.dataset.nav = "league";
      link.textContent = "League";
      after.after(link);
    })
    .catch(() => { /* no season to offer */ });
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Break a short label into lines of at most `n` characters (for SVG text). */
export function clip(text, n) {
  const t = String(text ?? "");
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
}

// Regions that scroll (tables, feeds, code) must be reachable by keyboard (axe:
// scrollable-region-focusable): every one gets tabindex=0 as soon as it is in the page.
const SCROLLERS = ".scroll-x, .feed, .moves, .copy code, .markdown pre, .markdown table";
function markScrollers(root) {
  for (const el of root.querySelectorAll(SCROLLERS)) {
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
  }
}
if (typeof document !== "undefined" && typeof MutationObserver !== "undefined") {
  const start = () => {
    markScrollers(document);
    new MutationObserver(() => markScrollers(document)).observe(document.body, { childList: true, subtree: true });
  };
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
}

/** The variant a table plays (`game`: its GET /api/games entry, or a standings game with
 * `variants` and `default_variant`): the named one, else the game's default — a table created
 * without naming one plays it. Null when there is none to name (a game without variants, or
 * one whose default is not known). */
export function playedVariant(variant, game) {
  if (variant !== null && variant !== undefined && variant !== "") return variant;
  return game?.default_variant ?? null;
}

/** A variant in words: the one played (an unnamed one: the game's default); for a game without
 * variants null; "variant not recorded" only when it cannot be known (a game with variants but
 * no default, or one this server does not have). */
export function variantLabel(variant, game) {
  const played = playedVariant(variant, game);
  if (played !== null) return played;
  return game && Array.isArray(game.variants) && !game.variants.length ? null : "variant not recorded";
}

/** A variant in a table's cell, where something must be said: a game without variants plays
 * its one standard set of rules (as the table maker names it). */
export function variantCell(variant, game) {
  return variantLabel(variant, game) ?? "standard";
}

/** The installed games by name (GET /api/games), for the pages that name a default variant. */
export async function gameCatalog() {
  const doc = await fetchJSON("/api/games");
  return Object.fromEntries(doc.games.map((g) => [g.name, g]));
}

// Where a policy name comes from: a server account's seat, a built-in baseline, a league
// entry, a season's agent version (remote agent, model, hosted policy, baseline)... Named in
// words next to the name, so they are never mistaken for each other.
export const KIND_WORD = { server: "server account", baseline: "baseline", scripted: "baseline", league: "league policy",
  model: "model", bot: "bot", remote: "remote agent", policy: "hosted policy", policy_file: "policy file" };

/** A "nothing here" cell in words, with the reason on hover (never a bare "–"). */
export function notApplicable(reason) {
  return h("abbr", { title: reason }, "n/a");
}

// Why a table was called off, in words: its results' `detail` (the server's abort reasons).
const ABORT_WORDS = { "start timeout": "nobody started it before its start deadline",
  operator: "the server's operator called it off" };

/** "Table ID was called off before it was played out: why." (GET /tables/ID/results). */
export async function calledOff(id) {
  const results = await fetchJSON(`/tables/${encodeURIComponent(id)}/results`).catch(() => null);
  const detail = results?.detail;
  const why = detail ? ABORT_WORDS[detail] ?? detail : "no reason was recorded";
  return `Table ${id} was called off before it was played out: ${why}. There is nothing to watch.`;
}

/** A game's title from the catalog (GET /api/games by name); its name where it is not installed. */
export function gameTitle(catalog, name) {
  return catalog?.[name]?.title ?? name;
}

/** A standings column's value as the Observatory shows it (percent columns as "67 %"). */
export function columnValue(value, column) {
  if (value === null || value === undefined) return notApplicable(`nothing to measure for “${column?.label ?? "this"}”`);
  return column?.format === "percent" ? `${Math.round(value * 100)} %` : fmt(value, 3);
}
