// The Lobby: open tables (seats free and how to join, with a copyable command for the example
// bot) and running tables to watch. Reads GET /games and the table list, which the server
// pushes over WS /ws/lobby (the whole list, then each table as it changes — on any server
// process). GET /tables is read only while that socket is down (every REFRESH_MS) and as a
// slow resync (rounds played) while it is up.

import { h, clear, fetchJSON, markNav, playedVariant, problemText } from "./util.js";
import { session, badge } from "./session.js";
import { playNowSection, makerSection, cardActions } from "./tablemaker.js";

const REFRESH_MS = 5000;
const RESYNC_MS = 30000;
const RECONNECT_MS = 2000;
const root = document.getElementById("lobby");

function copyable(text) {
  const code = h("code", {}, text);
  const btn = h("button", { type: "button", title: "copy the command", "data-focus-key": "copy" }, "copy");
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

// The example bot of each game, as its descriptor names it (GET /games `example_bot`).
let exampleBots = {};
// Each game's GET /games entry by name (its default variant names an unnamed table's).
let gameInfo = {};

/** The command that seats the game's example bot at this table. */
export function joinCommand(table, origin, bots = exampleBots) {
  const bot = bots[table.game] ?? "MODULE:CLASS";
  return `cogleague bot run ${bot} --server ${origin} --key $COGLEAGUE_KEY --table ${table.id}`;
}

/** A seat chip: its alias, and whether a person holds it. */
function seatChip(x) {
  const label = x.taken ? (x.alias ?? `seat ${x.seat + 1}`) : `seat ${x.seat + 1} free`; // counted from 1, as on /play
  return h("span", { class: `seat ${x.taken ? "" : "free"} ${x.person ? "person" : ""}`, "data-testid": `seat-${x.seat}`,
    "data-person": x.person ? "1" : null }, label, x.person ? [" ", h("span", { class: "who" }, "person")] : null); // two words, also read out
}

function tableCard(t, titles) {
  const free = t.seats.filter((x) => !x.taken).length;
  const open = t.state === "open";
  const variant = playedVariant(t.variant, gameInfo[t.game]); // unnamed: the game's default
  return h("article", { class: "panel table-card", "data-testid": `table-${t.id}` },
    h("h3", {}, titles[t.game] ?? t.game, variant ? h("span", { class: "pill", "data-testid": "variant" }, variant) : null,
      h("span", { class: `pill ${t.state === "running" ? "live" : open ? "ok" : ""}` }, t.state)),
    h("div", { class: "sub" }, `table ${t.id}`, t.stake ? ` · stake ${t.stake} credits` : " · free table",
      t.rounds_played !== undefined ? ` · ${t.rounds_played} rounds played` : ""),
    h("div", { class: "seats", "aria-label": "seats" }, t.seats.map(seatChip)),
    cardActions(t, sess, showProblem),
    open ? h("div", {},
      h("div", { class: "muted" }, `${free} of ${t.num_seats} seats free. Join with the example bot (an API key in $COGLEAGUE_KEY):`),
      copyable(joinCommand(t, location.origin)),
      free ? h("p", {}, h("a", { class: "button", href: `/play?table=${encodeURIComponent(t.id)}`, "data-focus-key": "play",
        "data-testid": "play-as-person" }, "Play as a person →")) : null)
      : null,
    h("p", {}, h("a", { href: `/theater?table=${encodeURIComponent(t.id)}`, "data-focus-key": "watch" }, t.state === "finished" ? "Watch the replay →" : "Watch live →")));
}

// The lobby refreshes in place: a card is rebuilt only when its table changed, and a section
// only re-renders its list when the order of its tables did, so focus, selection and scroll
// survive every refresh (rebuilding the whole page every 5 s lost them).
const cards = new Map(); // table id -> {sig, node}
const sections = new Map(); // state -> {el, list, count}

function cardFor(t, titles) {
  const sig = JSON.stringify(t);
  const have = cards.get(t.id);
  if (have && have.sig === sig) return have.node;
  const node = tableCard(t, titles);
  if (have) {
    const focused = have.node.contains(document.activeElement) ? document.activeElement : null;
    have.node.replaceWith(node);
    if (focused?.dataset.focusKey) node.querySelector(`[data-focus-key="${focused.dataset.focusKey}"]`)?.focus();
  }
  cards.set(t.id, { sig, node });
  return node;
}

function sectionFor(state, title, empty) {
  let sec = sections.get(state);
  if (!sec) {
    const count = h("span", {});
    const list = h("div", { class: "cards-grid" });
    const none = h("p", { class: "muted" }, empty);
    const el = h("section", { "data-testid": `section-${state}` }, h("h2", {}, title, " (", count, ")"), list, none);
    sec = { el, list, count, none };
    sections.set(state, sec);
    root.append(el);
  }
  return sec;
}

function fill(sec, nodes) {
  sec.count.textContent = String(nodes.length);
  sec.none.hidden = nodes.length > 0;
  const same = nodes.length === sec.list.children.length && nodes.every((n, i) => sec.list.children[i] === n);
  if (!same) sec.list.replaceChildren(...nodes); // moves the kept nodes; focus stays on them
}

let titles = {};
let sess = { signed_in: false };
const problem = h("p", { role: "alert", class: "error", hidden: true, "data-testid": "lobby-problem" });

function showProblem(err) {
  problem.textContent = problemText(err);
  if (err?.signIn) problem.append(" ", h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, "Sign in"));
  if (err?.link) problem.append(" ", h("a", { href: err.link.href }, err.link.text));
  problem.hidden = false;
}
const tables = new Map(); // table id -> its latest document
const pushedAt = new Map(); // table id -> when its last pushed document arrived
let pushed = false; // the lobby socket is open and has sent the list
const KEEP_ENDED = 100; // finished and aborted tables kept in memory (the page shows 12)

/** What an empty "Open tables" says: how this person makes one (the form is for people signed in). */
function openEmpty() {
  if (sess.signed_in) return "No table is waiting for players. Make one under “Create a table” above, or play now against the baselines.";
  return ["No table is waiting for players. ", h("a", { href: `/signin?next=${encodeURIComponent(location.pathname)}` }, "Sign in"),
    " to create one, or play now against the baselines."];
}

function render() {
  const all = [...tables.values()].sort((a, b) => b.created_at - a.created_at);
  const group = (state) => all.filter((t) => t.state === state);
  if (root.querySelector(".error, .loading")) clear(root);
  const spec = [["open", "Open tables", group("open"), openEmpty()],
    ["running", "Playing now", group("running"), "No table is being played right now."],
    ["finished", "Finished", group("finished").slice(0, 12), "No finished table yet."]];
  const seen = new Set();
  for (const [state, title, list, empty] of spec) {
    fill(sectionFor(state, title, empty), list.map((t) => { seen.add(t.id); return cardFor(t, titles); }));
  }
  for (const id of [...cards.keys()]) if (!seen.has(id)) cards.delete(id);
  document.body.dataset.ready = "lobby";
  document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
}

/** A whole list (GET /tables or the socket's first frame); a table pushed after `since` keeps
 * its pushed document, which is newer than the list. */
function replaceAll(list, since = Infinity) {
  const kept = new Map([...tables].filter(([id]) => (pushedAt.get(id) ?? -Infinity) > since));
  tables.clear();
  for (const t of list) tables.set(t.id, kept.get(t.id) ?? t);
  for (const [id, t] of kept) tables.set(id, t);
  render();
}

function prune() {
  const ended = [...tables.values()].filter((t) => t.state !== "open" && t.state !== "running")
    .sort((a, b) => b.created_at - a.created_at);
  for (const t of ended.slice(KEEP_ENDED)) { tables.delete(t.id); pushedAt.delete(t.id); }
}

function showError(err) {
  sections.clear();
  cards.clear();
  // no answer at all (the server is down or restarting) is not a server that answered "no"
  const text = err?.status === undefined
    ? `The table server cannot be reached; trying again every ${Math.round(refreshMs / 100) / 10} s…`
    : `The lobby needs the table server (cogleague serve): ${problemText(err)}`;
  clear(root).append(h("div", { class: "error" }, text));
  document.body.dataset.ready = "error";
}

async function load() {
  const since = performance.now();
  try {
    const { tables: list } = await fetchJSON("/tables");
    replaceAll(list, since);
  } catch (err) {
    if (!pushed) showError(err);
  }
}

async function loadTitles() {
  const [games, s] = await Promise.all([fetchJSON("/games").catch(() => ({ games: [] })), session()]);
  const list = games.games || [];
  // the tables where this account holds a seat (GET /session/tables): a running table offers
  // to take a seat back only to its own person, not to every signed-in visitor
  const mine = s.signed_in ? await fetchJSON("/session/tables").then((d) => new Set(d.tables.map((t) => t.id)), () => null) : null;
  sess = { ...s, mine };
  titles = Object.fromEntries(list.map((g) => [g.name, g.title]));
  gameInfo = Object.fromEntries(list.map((g) => [g.name, g]));
  exampleBots = Object.fromEntries(list.filter((g) => g.example_bot).map((g) => [g.name, g.example_bot]));
  if (list.length) root.before(problem, playNowSection(list, sess, showProblem), makerSection(list, sess, showProblem) ?? "");
  badge();
}

/** WS /ws/lobby: the list once, then every change; reconnects after a drop (polling meanwhile). */
function stream() {
  let ws;
  try {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/lobby`);
  } catch {
    setTimeout(stream, RECONNECT_MS);
    return;
  }
  ws.addEventListener("message", (msg) => {
    let frame;
    try { frame = JSON.parse(msg.data); } catch { return; }
    if (frame.type === "tables") {
      pushed = true;
      document.body.dataset.lobbyStream = "open";
      pushedAt.clear();
      replaceAll(frame.tables);
    } else if (frame.type === "table") {
      tables.set(frame.table.id, frame.table);
      pushedAt.set(frame.table.id, performance.now());
      prune();
      render();
    }
  });
  ws.addEventListener("close", () => {
    pushed = false;
    document.body.dataset.lobbyStream = "closed";
    setTimeout(stream, RECONNECT_MS);
  });
}

// Poll every refresh_ms while the socket is down; while it is up, resync every RESYNC_MS (or
// every refresh_ms when the page was given one).
const query = new URLSearchParams(location.search);
const refreshMs = Number(query.get("refresh_ms")) || REFRESH_MS;
const resyncMs = query.get("refresh_ms") ? refreshMs : RESYNC_MS;
let lastLoad = 0;
setInterval(() => {
  if (!pushed || Date.now() - lastLoad >= resyncMs) {
    lastLoad = Date.now();
    load();
  }
}, refreshMs);

markNav();
loadTitles().then(() => { lastLoad = Date.now(); return load(); }).then(stream);
