// The Lobby: open tables (seats free and how to join, with a copyable command for the example
// bot) and running tables to watch. Reads GET /tables and GET /games of the table server.

import { h, clear, fetchJSON, markNav } from "./util.js";

const REFRESH_MS = 5000;
const root = document.getElementById("lobby");

function copyable(text) {
  const code = h("code", {}, text);
  const btn = h("button", { type: "button", title: "copy" }, "copy");
  btn.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      btn.textContent = "copied";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      btn.textContent = "selected";
    }
    setTimeout(() => { btn.textContent = "copy"; }, 1500);
  });
  return h("div", { class: "copy" }, code, btn);
}

// The example bot of each game (examples/*.py in the repository), run by `cogleague bot run`.
const EXAMPLE_BOTS = { ledger: "examples/ledger_bot.py:FairDealer", commons: "examples/commons_bot.py:Steward",
  dilemma: "examples/dilemma_bot.py:PromiseKeeper" };

/** The command that seats the game's example bot at this table. */
export function joinCommand(table, origin) {
  const bot = EXAMPLE_BOTS[table.game] ?? "MODULE:CLASS";
  return `cogleague bot run ${bot} --server ${origin} --key $COGLEAGUE_KEY --table ${table.id}`;
}

function tableCard(t, titles) {
  const free = t.seats.filter((x) => !x.taken).length;
  const open = t.state === "open";
  return h("article", { class: "panel table-card", "data-testid": `table-${t.id}` },
    h("h3", {}, titles[t.game] ?? t.game, t.variant ? h("span", { class: "pill" }, t.variant) : null,
      h("span", { class: `pill ${t.state === "running" ? "live" : open ? "ok" : ""}` }, t.state)),
    h("div", { class: "sub" }, `table ${t.id}`, t.stake ? ` · stake ${t.stake} credits` : " · free table",
      t.rounds_played !== undefined ? ` · ${t.rounds_played} rounds played` : ""),
    h("div", { class: "seats" }, t.seats.map((x) => h("span", { class: `seat ${x.taken ? "" : "free"}` },
      x.taken ? (x.alias ?? `seat ${x.seat}`) : `seat ${x.seat} free`))),
    open ? h("div", {},
      h("div", { class: "muted" }, `${free} of ${t.num_seats} seats free. Join with the example bot (an API key in $COGLEAGUE_KEY):`),
      copyable(joinCommand(t, location.origin)))
      : null,
    h("p", {}, h("a", { href: `/theater?table=${encodeURIComponent(t.id)}` }, t.state === "finished" ? "Watch the replay →" : "Watch live →")));
}

async function load() {
  try {
    const [{ tables }, games] = await Promise.all([fetchJSON("/tables"), fetchJSON("/games").catch(() => ({ games: [] }))]);
    const titles = Object.fromEntries((games.games || []).map((g) => [g.name, g.title]));
    const group = (state) => tables.filter((t) => t.state === state);
    const section = (title, list, empty) => h("section", {},
      h("h2", {}, `${title} (${list.length})`),
      list.length ? h("div", { class: "cards-grid" }, list.map((t) => tableCard(t, titles))) : h("p", { class: "muted" }, empty));
    clear(root).append(
      section("Open tables", group("open"), "No table is waiting for players. An account can create one with POST /tables."),
      section("Playing now", group("running"), "No table is being played right now."),
      section("Finished", group("finished").slice(0, 12), "No finished table yet."));
    document.body.dataset.ready = "lobby";
  } catch (err) {
    clear(root).append(h("div", { class: "error" }, `The lobby needs the table server (cogleague serve): ${err.message}`));
    document.body.dataset.ready = "error";
  }
}

markNav();
load();
setInterval(load, REFRESH_MS);
