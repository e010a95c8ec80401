// The League page: the season's live board (GET /leagues/ID/standings, then WS /ws/leagues/ID
// pushes a new document after every rating update). No key needed: it shows what spectators
// may see (held-out agents stay hidden until the season ends).

import { h, clear, fmt, fetchJSON, gameCatalog, gameTitle, markNav, problemText, variantCell, KIND_WORD } from "./util.js";

const out = document.getElementById("board");
const tabs = document.getElementById("tabs");
const summary = document.getElementById("summary");
let current = null;
const RECONNECT_MS = 3000;

function faults(counts) {
  const parts = Object.entries(counts || {}).map(([cause, n]) => `${n} ${cause}`);
  return parts.length ? parts.join(", ") : "none";
}

function agentLink(id, r) {
  const label = `${r.agent}${r.current ? "" : ` v${r.version} (old)`}`;
  return h("a", { href: `/league/agent?id=${encodeURIComponent(id)}&name=${encodeURIComponent(r.agent)}` }, label);
}

function boardTable(id, game) {
  const head = ["rank", "agent", "version", "kind", "owner", "rating (μ − 3σ)", "μ", "95 % interval", "tables", "fallbacks", "state"];
  return h("div", { class: "scroll-x" }, h("table", { class: "data", "data-testid": `board-${game.game}` },
    h("thead", {}, h("tr", {}, head.map((x, k) => h("th", { class: [0, 5, 6, 7, 8].includes(k) ? "num" : "" }, x)))),
    h("tbody", {}, game.rows.map((r) => h("tr", { "data-testid": `agent-${r.agent}` },
      h("td", { class: "num" }, r.rank), h("td", { class: "alias" }, agentLink(id, r)),
      h("td", {}, `v${r.version}`), h("td", {}, r.baseline ? "baseline" : KIND_WORD[r.kind] ?? r.kind),
      h("td", {}, r.owner), h("td", { class: "num" }, fmt(r.rating, 2)),
      h("td", { class: "num" }, fmt(r.mu, 2)), h("td", { class: "num" }, `${fmt(r.low, 1)} – ${fmt(r.high, 1)}`),
      h("td", { class: "num" }, r.games), h("td", {}, faults(r.faults)),
      h("td", {}, r.reason ? `${r.state} (${r.reason})` : r.state))))));
}

/** The batch refit's table; `catalog`: the installed games by name (a row that names no
 * variant played its game's default). */
export function refitTable(game, catalog = {}) {
  const fit = game.refit;
  if (!fit || !fit.rows.length) return null;
  return h("div", { class: "scroll-x" }, h("h3", {}, "Batch refit: mean episode score, 95 % bootstrap interval"),
    h("table", { class: "data", "data-testid": `refit-${game.game}` },
      h("thead", {}, h("tr", {}, ["rank", "agent", "variant", "tables", "mean", "95 % interval"].map((x) => h("th", {}, x)))),
      h("tbody", {}, fit.rows.map((r) => h("tr", {},
        h("td", { class: "num" }, r.rank_label), h("td", { class: "alias" }, r.policy),
        h("td", {}, variantCell(r.variant, catalog[game.game])), h("td", { class: "num" }, r.games),
        h("td", { class: "num" }, fmt(r.mean, 2)),
        h("td", { class: "num" }, r.low === null ? "needs 2 episodes" : `${fmt(r.low, 2)} – ${fmt(r.high, 2)}`))))));
}

/** Where the focus is on the board (a game's tab, an agent's link), so that a pushed re-render
 * can put it back: otherwise every rating update drops a keyboard user to the top. */
function focusFinder() {
  const el = document.activeElement;
  if (!el || !(tabs.contains(el) || out.contains(el))) return null;
  if (el.dataset.game) return () => tabs.querySelector(`[data-game="${CSS.escape(el.dataset.game)}"]`);
  const href = el.getAttribute("href");
  return href ? () => out.querySelector(`a[href="${CSS.escape(href)}"]`) : null;
}

function render(id, doc, catalog) {
  const refocus = focusFinder();
  const tables = Object.entries(doc.tables || {}).map(([k, n]) => `${n} ${k}`).join(", ") || "none yet";
  summary.textContent = `Season ${doc.league} · ${doc.phase}${doc.frozen ? " (final standings, frozen)" : ""} · ` +
    `tables: ${tables}` + (doc.held_out_hidden ? ` · ${doc.held_out_hidden} held-out rating(s) hidden until the end` : "");
  const names = doc.games.map((g) => g.game);
  const show = (name) => {
    current = name;
    for (const b of tabs.children) { // the chosen tab is told by more than its colour
      b.classList.toggle("on", b.dataset.game === name);
      b.setAttribute("aria-pressed", String(b.dataset.game === name));
    }
    const game = doc.games.find((g) => g.game === name);
    clear(out).append(h("div", { class: "panel" }, h("h2", {}, gameTitle(catalog, name)),
      h("p", { class: "muted" }, "Live OpenSkill ratings, best conservative rating first; baselines are labelled."),
      boardTable(id, game), refitTable(game, catalog)));
  };
  clear(tabs).append(...names.map((n) => h("button", { type: "button", "data-game": n, on: { click: () => show(n) } }, gameTitle(catalog, n))));
  if (!names.length) {
    clear(out).append(h("p", { class: "muted" }, "No rated table yet: register an agent (docs/league.md, “Join the league”)."));
  } else {
    show(names.includes(current) ? current : names[0]);
  }
  refocus?.()?.focus();
  document.body.dataset.ready = "league";
  document.body.dataset.version = String(doc.version);
}

/** The board's pushes (each one the whole standings). A socket that closes — the server
 * restarting, a network drop — is said and opened again until it is back, so the board never
 * sits on standings that stopped moving; the server sends the standings first on each socket. */
function follow(id, catalog) {
  const lost = h("p", { class: "error", role: "status", "data-testid": "board-lost", hidden: true });
  summary.after(lost);
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/leagues/${encodeURIComponent(id)}`);
    ws.onopen = () => { lost.hidden = true; lost.textContent = ""; };
    ws.onmessage = (msg) => render(id, JSON.parse(msg.data).standings, catalog);
    ws.onclose = () => {
      lost.textContent = `Connection to the server lost: the board is not updating; trying again every ${RECONNECT_MS / 1000} s…`;
      lost.hidden = false;
      setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();
}

async function main() {
  markNav();
  try {
    let id = new URLSearchParams(location.search).get("id");
    if (!id) {
      const leagues = (await fetchJSON("/leagues")).leagues;
      if (!leagues.length) throw new Error("this server runs no season (cogleague serve --season FILE)");
      id = leagues[0].id;
    }
    const [doc, catalog] = await Promise.all([fetchJSON(`/leagues/${encodeURIComponent(id)}/standings`), gameCatalog()]);
    render(id, doc, catalog);
    follow(id, catalog);
  } catch (err) {
    clear(out).append(h("div", { class: "error" }, `The board is not available: ${problemText(err)}`),
      h("p", {}, h("a", { href: "/", "data-testid": "way-back" }, "Back to the Lobby")));
    document.body.dataset.ready = "error";
  }
}

main();
