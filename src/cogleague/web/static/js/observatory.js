// The Observatory: standings per game from finished tables (GET /api/standings): each policy's
// mean episode score with a 95 % interval, best and worst episode.

import { h, clear, fetchJSON, fmt, markNav } from "./util.js";

const tabs = document.getElementById("tabs");
const out = document.getElementById("standings");

function table(game) {
  if (!game.policies.length) return h("p", { class: "muted" }, `No finished ${game.title} episode yet.`);
  const top = Math.max(...game.policies.map((p) => p.mean), 1e-9);
  return h("div", { class: "scroll-x" }, h("table", { class: "data", "data-testid": `standings-${game.game}` },
    h("thead", {}, h("tr", {}, ["#", "policy", "episodes", "mean score", "95 % interval", "best", "worst", ""].map((x, k) =>
      h("th", { class: k === 1 || k === 7 ? "" : "num" }, x)))),
    h("tbody", {}, game.policies.map((p) => h("tr", { class: p.rank === 1 ? "first" : "", "data-testid": `row-${p.policy}` },
      h("td", { class: "num" }, p.rank), h("td", { class: "alias" }, p.policy), h("td", { class: "num" }, p.episodes),
      h("td", { class: "num", "data-field": "mean" }, fmt(p.mean, 3)),
      h("td", { class: "num" }, p.ci95 === null ? "–" : `± ${fmt(p.ci95, 2)}`),
      h("td", { class: "num" }, fmt(p.best, 2)), h("td", { class: "num" }, fmt(p.worst, 2)),
      h("td", { style: { width: "30%" } }, h("div", { class: "bar", style: { height: "8px", background: "var(--panel-2)", borderRadius: "4px" } },
        h("i", { style: { display: "block", height: "100%", borderRadius: "4px", background: "var(--gold)", width: `${Math.max(0, (p.mean / top) * 100).toFixed(1)}%` } }))))))));
}

async function main() {
  markNav();
  try {
    const doc = await fetchJSON("/api/standings");
    const show = (name) => {
      for (const b of tabs.children) b.classList.toggle("on", b.dataset.game === name);
      const game = doc.games.find((g) => g.game === name);
      clear(out).append(h("div", { class: "panel" }, h("h2", {}, `${game.title} · ${game.episodes} finished episode${game.episodes === 1 ? "" : "s"}`), table(game)));
      history.replaceState(null, "", `?game=${name}`);
    };
    clear(tabs).append(...doc.games.map((g) => h("button", { type: "button", "data-game": g.game, on: { click: () => show(g.game) } }, g.title)));
    const wanted = new URLSearchParams(location.search).get("game");
    const first = doc.games.find((g) => g.game === wanted) ?? doc.games.find((g) => g.episodes) ?? doc.games[0];
    if (first) show(first.game);
    document.body.dataset.ready = "observatory";
  } catch (err) {
    clear(out).append(h("div", { class: "error" }, `Standings are not available: ${err.message}`));
  }
}

main();
