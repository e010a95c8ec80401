// An agent's page: its rating over time (one line per game), recent tables with replay links,
// its fallbacks by cause, its behaviour traits (the games' stat columns over its tables), its
// `cogleague profile` traits (baselines and policy files), its owner and versions. From
// GET /leagues/ID/agents/NAME; no key needed.

import { h, clear, fmt, fetchJSON, columnValue, gameCatalog, gameTitle, markNav, seatColour, problemText, variantCell, KIND_WORD, notApplicable } from "./util.js";
import { lineChart } from "./chart.js";

const out = document.getElementById("agent");

function versions(doc, catalog) {
  return h("div", { class: "scroll-x" }, h("h3", {}, "Versions"), h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["version", "kind", "games", "cap", "state", "description"].map((x) => h("th", {}, x)))),
    h("tbody", {}, doc.versions.map((v) => h("tr", {},
      h("td", {}, `v${v.version}${v.current ? "" : " (old)"}`), h("td", {}, v.baseline ? "baseline" : KIND_WORD[v.kind] ?? v.kind),
      h("td", {}, v.games.map((g) => gameTitle(catalog, g)).join(", ")), h("td", { class: "num" }, v.cap),
      h("td", {}, v.reason ? `${v.state}: ${v.reason}` : v.state), h("td", {}, v.description || h("span", { class: "muted" }, "no description")))))));
}

function ratingPlot(doc, catalog) {
  const games = [...new Set(doc.history.map((p) => p.game))];
  if (!games.length) return h("p", { class: "muted" }, "No rated table yet.");
  const width = Math.min(720, (out.clientWidth || 760) - 40);
  return h("div", { "data-testid": "rating-plot" }, h("h3", {}, "Conservative rating (μ − 3σ) after each rated table"),
    lineChart({ width, testid: "rating-chart", label: `rating over time: ${games.map((g) => gameTitle(catalog, g)).join(", ")}`,
      series: games.map((g, i) => ({ name: gameTitle(catalog, g), colour: seatColour(i),
        values: doc.history.filter((p) => p.game === g).map((p) => p.rating) })) }));
}

/** The agent's recent tables; a finished one's replay opens in the Theater (the API's
 * `replay` path is the JSON document itself). */
function recent(doc, catalog) {
  return h("div", { class: "scroll-x" }, h("h3", {}, "Recent tables"), h("table", { class: "data", "data-testid": "recent" },
    h("thead", {}, h("tr", {}, ["table", "game", "phase", "state", "score", "rated", "fallbacks", "replay"].map((x) => h("th", {}, x)))),
    h("tbody", {}, doc.recent.map((t) => h("tr", {},
      h("td", {}, h("a", { href: t.watch }, t.table)), h("td", {}, gameTitle(catalog, t.game)), h("td", {}, t.phase),
      h("td", {}, t.reason ? `${t.state} (${t.reason})` : t.state), h("td", { class: "num" }, t.score === null ? (t.state === "running" ? "playing" : "none") : fmt(t.score, 2)),
      h("td", {}, t.outcome ?? "playing"),
      h("td", {}, Object.entries(t.faults).map(([c, n]) => `${n} ${c}`).join(", ") || "none"),
      h("td", {}, t.state === "finished" ? h("a", { href: `/theater?replay=${encodeURIComponent(t.replay)}` }, "replay") : t.state === "running" ? "after the end" : "none"))))));
}

/** The behaviour traits' table; `catalog`: the installed games by name (a row that names no
 * variant played its game's default). */
export function traits(doc, catalog = {}) {
  const rows = Object.entries(doc.traits).flatMap(([game, list]) => list.flatMap((r) =>
    Object.entries(r.extras || {}).map(([k, v]) => [gameTitle(catalog, game), variantCell(r.variant, catalog[game]),
      (catalog[game]?.standings_columns ?? []).find((c) => c.key === k) ?? { key: k, label: k }, v])));
  if (!rows.length) return h("p", { class: "muted" }, "No behaviour traits yet (they come with the batch refit).");
  return h("div", { class: "scroll-x" }, h("h3", {}, "Behaviour traits (the games' stat columns over its tables)"),
    h("table", { class: "data", "data-testid": "traits" },
      h("thead", {}, h("tr", {}, ["game", "variant", "trait", "value"].map((x) => h("th", {}, x)))),
      h("tbody", {}, rows.map(([g, v, c, x]) => h("tr", {}, h("td", {}, g), h("td", {}, v), h("td", {}, c.label),
        h("td", { class: "num" }, columnValue(x, c)))))));
}

function profile(doc, catalog) {
  const p = doc.profile;
  if (!p) return h("p", { class: "muted" }, "Behaviour profile: none for this agent.");
  if (p.error) return h("p", { class: "muted" }, `Behaviour profile not available: ${p.error}`);
  const rows = Object.entries(p).flatMap(([game, doc]) => doc.traits.map((t) => [game, t]));
  const sources = [...new Set(Object.values(p).map((doc) => doc.source).filter(Boolean))].join(", ");
  return h("div", { class: "scroll-x" }, h("h3", {}, "Behaviour profile (cogleague profile, 95 % Wilson intervals" +
    (sources ? `, measured from: ${sources}` : "") + ")"),
    h("table", { class: "data", "data-testid": "profile" },
      h("thead", {}, h("tr", {}, ["game", "trait", "value", "95 % interval", "verdict"].map((x) => h("th", {}, x)))),
      h("tbody", {}, rows.map(([g, t]) => h("tr", {}, h("td", {}, gameTitle(catalog, g)), h("td", {}, t.label),
        h("td", { class: "num" }, t.value === null ? notApplicable("no table gave this situation yet") : fmt(t.value, 2)),
        h("td", { class: "num" }, t.low === null ? notApplicable("no interval without data") : `${fmt(t.low, 2)} – ${fmt(t.high, 2)}`),
        h("td", {}, t.verdict ?? notApplicable(t.kind === "rate" ? "no verdict without data" : "a verdict is given for rates only")))))));
}

async function main() {
  markNav();
  const q = new URLSearchParams(location.search);
  const id = q.get("id"), name = q.get("name");
  try {
    if (!id || !name) throw new Error("the address needs ?id=SEASON&name=AGENT");
    const [doc, catalog] = await Promise.all([
      fetchJSON(`/leagues/${encodeURIComponent(id)}/agents/${encodeURIComponent(name)}`), gameCatalog()]);
    document.getElementById("title").textContent = name;
    const v = doc.versions[0];
    const kind = v.baseline ? "baseline" : KIND_WORD[v.kind] ?? v.kind;
    document.getElementById("about").textContent = `${kind}${kind.endsWith("agent") ? "" : " agent"} of ${doc.owner} · ` +
      `season ${id} · fallbacks: ${Object.entries(doc.faults).map(([c, n]) => `${n} ${c}`).join(", ") || "none"}`;
    clear(out).append(h("div", { class: "panel" }, ratingPlot(doc, catalog), versions(doc, catalog), traits(doc, catalog), profile(doc, catalog), recent(doc, catalog),
      h("p", {}, h("a", { href: `/league?id=${encodeURIComponent(id)}` }, "← the board"))));
    document.body.dataset.ready = "agent";
  } catch (err) {
    clear(out).append(h("div", { class: "error" }, `This agent is not available: ${problemText(err)}`),
      h("p", {}, h("a", { href: "/league", "data-testid": "way-back" }, "← the League board")));
    document.body.dataset.ready = "error";
  }
}

main();
