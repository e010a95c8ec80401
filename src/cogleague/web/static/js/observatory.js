// The Observatory: the league's standings from the store (GET /api/standings), the same
// document `cogleague league standings` prints. Per game and variant: each policy's mean
// episode score with its bootstrap 95 % interval, a rank only where intervals separate
// ("level a–b" otherwise), and the game's own extra columns; across games, Bradley–Terry and
// OpenSkill ratings with their intervals.

import { h, clear, fetchJSON, fmt, markNav, problemText, variantLabel, KIND_WORD, notApplicable } from "./util.js";

const tabs = document.getElementById("tabs");
const out = document.getElementById("standings");

function extra(value, column) {
  if (value === null || value === undefined) { // e.g. promises kept where none was made
    return notApplicable(`nothing to measure for “${column.label}” in these episodes`);
  }
  return column.format === "percent" ? `${Math.round(value * 100)} %` : fmt(value, 2);
}

/** A 95 % interval in words; where there is none, why: the bootstrap needs two episodes (and
 * a pairwise rating two policies). */
function intervalText(row, policies = 2) {
  if (row.low !== null && row.low !== undefined) return `${fmt(row.low, 2)} – ${fmt(row.high, 2)}`;
  return policies < 2 ? "needs 2 policies" : "needs 2 episodes";
}

function intervalBar(row, lo, hi) {
  const span = hi - lo || 1;
  const x = (v) => `${(((v - lo) / span) * 100).toFixed(1)}%`;
  return h("div", { class: "ci", title: `${fmt(row.low, 2)} … ${fmt(row.high, 2)}`,
                    style: { position: "relative", height: "10px", background: "var(--panel-2)", borderRadius: "5px" } },
    row.low === null ? null : h("i", { style: { position: "absolute", top: "3px", height: "4px", borderRadius: "2px",
      background: "var(--gold)", opacity: "0.6", left: x(row.low), width: `calc(${x(row.high)} - ${x(row.low)})` } }),
    h("b", { style: { position: "absolute", top: "1px", width: "8px", height: "8px", borderRadius: "4px",
      background: "var(--gold)", left: `calc(${x(row.mean)} - 4px)` } }));
}


function kindTag(row) {
  const kind = row.kind ?? "server";
  return h("span", { class: `pill kind-${kind}`, "data-field": "kind", title: row.author ? `by ${row.author}` : kind },
    KIND_WORD[kind] ?? kind);
}

export { variantLabel }; // its home is util.js, shared with the season pages

function scoreTable(game, table) {
  const lows = table.rows.map((r) => r.low ?? r.mean);
  const highs = table.rows.map((r) => r.high ?? r.mean);
  const lo = Math.min(...lows), hi = Math.max(...highs);
  // the bars' column is named for screen readers; sighted readers see the bars themselves
  const head = ["rank", "policy", "episodes", "mean score", "95 % interval", ...table.columns.map((c) => c.label),
    h("span", { class: "sr-only" }, "mean and interval, drawn")];
  return h("div", { class: "scroll-x" }, h("table", { class: "data", "data-testid": `standings-${game}` },
    h("thead", {}, h("tr", {}, head.map((x, k) => h("th", { class: k === 1 || k === head.length - 1 ? "" : "num" }, x)))),
    h("tbody", {}, table.rows.map((r) => h("tr", { class: r.separated && r.rank === 1 ? "first" : "", "data-testid": `row-${r.policy}` },
      h("td", { class: "num", "data-field": "rank" }, r.rank_label),
      h("td", {}, h("span", { class: "alias" }, r.policy), " ", kindTag(r)),
      h("td", { class: "num" }, r.games),
      h("td", { class: "num", "data-field": "mean" }, fmt(r.mean, 3)),
      h("td", { class: "num" }, intervalText(r)),
      table.columns.map((c) => h("td", { class: "num" }, extra(r.extras[c.key], c))),
      h("td", { style: { width: "24%", minWidth: "90px" } }, intervalBar(r, lo, hi)))))));
}

function overallTable(title, rows, value) {
  return h("div", { class: "scroll-x" }, h("h3", {}, title), h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["rank", "policy", value.label, "95 % interval"].map((x, k) => h("th", { class: k === 1 ? "" : "num" }, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {},
      h("td", { class: "num" }, r.rank_label), h("td", { class: "alias" }, r.policy),
      h("td", { class: "num" }, fmt(r[value.key], 2)),
      h("td", { class: "num" }, intervalText(r, rows.length)))))));
}

/** Episodes nobody connected to (the game's connect timeout): counted, never ranked. */
function unplayedNote(game) {
  const n = game.no_players ?? 0;
  if (!n) return null;
  return h("p", { class: "muted", "data-testid": "no-players" },
    `${n} episode${n === 1 ? "" : "s"} ended no_players: nobody connected within the connect timeout, ` +
    "so nothing was played (every score zero). Counted here, not ranked.");
}

/** An option's name and value as the Create-a-table form words them ("rounds total 3"). */
const optionWords = ([key, value]) =>
  `${key.replaceAll("_", " ").replaceAll(".", " ")} ${value === true ? "yes" : value === false ? "no" : value}`;

/** Why a variant may have several tables: the options that change a score's scale. */
function scalesNote(game) {
  const apart = [...new Set(game.tables.flatMap((t) => Object.keys(t.options ?? {})))];
  return h("p", { class: "muted", "data-testid": "scales" },
    "Scores of episodes played with options that change their scale (more rounds, other seats or payoffs) are never averaged " +
    "together: each such set of options has its own table" +
    (apart.length ? `, here told apart by ${apart.map((k) => k.replaceAll("_", " ").replaceAll(".", " ")).join(", ")}. ` : ". ") +
    "The ratings below compare seats within each episode, so they take every episode.");
}

function gamePanel(game) {
  const note = unplayedNote(game);
  if (!game.tables.length) {
    return h("div", {}, h("p", { class: "muted" }, `No finished ${game.title} episode yet.`), note);
  }
  const parts = [scalesNote(game), ...game.tables.map((t) => h("section", {},
    h("h3", { "data-testid": "variant" }, [variantLabel(t.variant, game), ...Object.entries(t.options ?? {}).map(optionWords),
      `${t.episodes} episode${t.episodes === 1 ? "" : "s"}`, t.statistic].filter((x) => x !== null).join(" · ")),
    scoreTable(game.game, t)))];
  if (game.overall) {
    parts.push(overallTable("Bradley–Terry strength (within-episode pairwise outcomes)", game.overall.bradley_terry.rows,
      { key: "strength", label: "strength" }));
    const rated = game.overall.openskill.rows;
    const missing = [...new Set(game.tables.flatMap((t) => t.rows.map((r) => r.policy)))]
      .filter((name) => !rated.some((r) => r.policy === name)).sort();
    parts.push(rated.length ? overallTable("OpenSkill (Plackett–Luce)", rated, { key: "mu", label: "μ" })
      : h("h3", {}, "OpenSkill (Plackett–Luce)"));
    if (missing.length) {
      parts.push(h("p", { class: "muted", "data-testid": "not-rated" }, `Not rated by OpenSkill: ${missing.join(", ")}. ` +
        `It learns only from tables where a policy sat with another policy, and ${missing.length === 1 ? "this one" : "these"} never did.`));
    }
  }
  if (note) parts.push(note);
  return h("div", {}, parts);
}

async function main() {
  markNav();
  try {
    const doc = await fetchJSON("/api/standings");
    const show = (name, missing = null) => {
      for (const b of tabs.children) { // the chosen tab is told by more than its colour
        b.classList.toggle("on", b.dataset.game === name);
        b.setAttribute("aria-pressed", String(b.dataset.game === name));
      }
      const game = doc.games.find((g) => g.game === name);
      clear(out).append(missing === null ? "" : h("p", { class: "error", role: "status", "data-testid": "not-found" },
        `This server has no game named “${missing}”; here is ${game.title} instead.`), h("div", { class: "panel" },
        h("h2", {}, `${game.title} · ${game.episodes} finished episode${game.episodes === 1 ? "" : "s"}`),
        h("p", { class: "muted" }, "A rank is shown only when the 95 % intervals separate; otherwise the rows are marked level."),
        gamePanel(game)));
      // a name this server does not have stays in the address (the notice above names it)
      if (missing === null) history.replaceState(null, "", `?game=${encodeURIComponent(name)}`);
    };
    clear(tabs).append(...doc.games.map((g) => h("button", { type: "button", "data-game": g.game, on: { click: () => show(g.game) } }, g.title)));
    const wanted = new URLSearchParams(location.search).get("game");
    const first = doc.games.find((g) => g.game === wanted) ?? doc.games.find((g) => g.episodes) ?? doc.games[0];
    if (first) show(first.game, wanted !== null && first.game !== wanted ? wanted : null);
    document.body.dataset.ready = "observatory";
  } catch (err) {
    clear(out).append(h("div", { class: "error" }, `Standings are not available: ${problemText(err)}`));
  }
}

main();
