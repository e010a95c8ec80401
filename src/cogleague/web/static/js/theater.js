// The Theater: one viewer for replay files and live tables.
//   /theater?replay=URL   a replay document at URL (e.g. /tables/ID/replay)
//   /theater?file=1       the replay that `cogleague replay open FILE` serves (/api/replay-file)
//   /theater?table=ID     a live table: GET /tables/ID, then WS /ws/watch?table=ID
// A replay can also be dropped onto the page. The game is told by the replay's `format`
// (or the table's `game`); each game module folds events into steps and draws them.

import { Story } from "./story.js";
import { Scrubber } from "./scrubber.js";
import { h, clear, fetchJSON, markNav } from "./util.js";

const GAMES = {
  ledger: () => import("./games/ledger.js"),
  commons: () => import("./games/commons.js"),
  dilemma: () => import("./games/dilemma.js"),
};
const FORMATS = { "ledger.replay.v1": "ledger", "commons-family/1": "commons", "dilemma.replay.v1": "dilemma" };
const RECONNECT_MS = 2000;
const FINISH_POLLS = 40, FINISH_POLL_MS = 250;

const root = document.getElementById("theater");
const bar = document.getElementById("scrubber");
const title = document.getElementById("title");
const badges = document.getElementById("badges");

function showError(message) {
  clear(root).append(h("div", { class: "error", "data-testid": "error" }, message));
}

function gameOfReplay(doc) {
  const name = FORMATS[doc?.format];
  if (!name) {
    throw new Error(`not a cogleague replay: format ${JSON.stringify(doc?.format)} ` +
      `(known: ${Object.keys(FORMATS).join(", ")})`);
  }
  return name;
}

let current = null; // the mounted story: {scrubber, redraw}
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => current?.redraw(), 120);
});

/** Mount a story into the page: the game draws, the scrubber moves. */
function theaterFor(game, story, { live = false, label = "" } = {}) {
  current?.scrubber.destroy();
  const meta = story.meta;
  title.textContent = `${game.title}${meta.variant ? ` · ${meta.variant}` : ""}`;
  clear(badges).append(...[
    live ? h("span", { class: "pill live", "data-testid": "live" }, "live") : h("span", { class: "pill" }, "replay"),
    meta.seed !== undefined && meta.seed !== null ? h("span", { class: "pill" }, `seed ${meta.seed}`) : null,
    label ? h("span", { class: "pill" }, label) : null,
  ].filter(Boolean));
  clear(root);
  const view = game.mount(root, meta);
  let shown = 0;
  const draw = (i) => {
    shown = i;
    view.update({ steps: story.steps, index: i, step: story.steps[i], meta, live });
  };
  const scrubber = new Scrubber(bar, {
    count: () => story.steps.length,
    label: (i) => story.steps[i].label,
    stepOfRound: (r) => story.stepOfRound(r),
    onChange: draw,
  });
  window.theater = { story, scrubber }; // for people poking at a replay in the console, and tests
  current = { scrubber, redraw: () => draw(shown) };
  return current;
}

async function openReplay(doc, label, { atEnd = false } = {}) {
  const name = gameOfReplay(doc);
  const game = await GAMES[name]();
  const meta = game.metaFromReplay(doc);
  const story = new Story(game, meta);
  for (const ev of game.eventsOfReplay(doc)) story.push(ev);
  const { scrubber } = theaterFor(game, story, { label });
  scrubber.follow = atEnd;
  scrubber.refresh();
  scrubber.go(atEnd ? scrubber.last() : 0);
  document.body.dataset.ready = "replay";
}

/** Policy names are for spectators: the table's public face hides them, its spectator view
 *  (GET /tables/ID/spectator) shows them, in each game's own shape. */
function policyNames(spec) {
  if (!spec) return null;
  return spec.policy_names ?? spec.policies ?? spec.policyNames
    ?? (Array.isArray(spec.seats) ? spec.seats.map((x) => x.policyName ?? x.policy ?? "") : null);
}

async function openTable(id) {
  const tableUrl = `/tables/${encodeURIComponent(id)}`;
  const info = await fetchJSON(tableUrl);
  const finish = async () => openReplay(await fetchJSON(`${tableUrl}/replay`), `table ${id}`, { atEnd: true });
  if (info.state === "finished") return finish(); // the full replay: promises and memos too
  if (info.state === "aborted") throw new Error(`table ${id} was aborted (${info.reason ?? "no reason given"})`);
  const game = GAMES[info.game] ? await GAMES[info.game]() : null;
  if (!game) throw new Error(`table ${id} plays an unknown game ${JSON.stringify(info.game)}`);
  const meta = game.metaFromTable(info);
  const story = new Story(game, meta);
  const mounted = theaterFor(game, story, { live: true, label: `table ${id}` });
  let namesAsked = false;
  const fillNames = async () => {
    namesAsked = true;
    try {
      const names = policyNames(await fetchJSON(`${tableUrl}/spectator`));
      if (names) { meta.names = names; mounted.redraw(); }
    } catch { /* not running yet: names come with the first events */ }
  };
  let lastSeq = 0;
  let ended = false;
  let queued = false;
  const refresh = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; mounted.scrubber.refresh(); });
  };
  const onEnd = async () => {
    if (ended) return;
    ended = true;
    document.body.dataset.ended = "1";
    // The replay is written when the table is marked finished: ask for it only then.
    for (let tries = 0; tries < FINISH_POLLS; tries++) {
      try {
        if ((await fetchJSON(tableUrl)).state === "finished") return await finish();
      } catch (err) { console.warn(err); }
      await new Promise((ok) => setTimeout(ok, FINISH_POLL_MS));
    }
  };
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/watch?table=${encodeURIComponent(id)}` +
      (lastSeq ? `&last_seq=${lastSeq}` : ""));
    ws.onopen = () => { document.body.dataset.ready = "live"; };
    ws.onmessage = (msg) => {
      const frame = JSON.parse(msg.data);
      if (frame.type === "event") {
        if (typeof frame.seq === "number") {
          if (frame.seq <= lastSeq) return; // already folded
          lastSeq = frame.seq;
        }
        if (!namesAsked) fillNames();
        story.push({ kind: frame.event, ...(frame.payload || {}) });
        document.body.dataset.events = String(story.events);
        refresh();
      } else if (frame.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
      } else if (frame.type === "end") {
        onEnd();
      }
    };
    ws.onclose = () => {
      if (!ended) setTimeout(async () => {
        try {
          if ((await fetchJSON(tableUrl)).state === "finished") return onEnd();
        } catch { /* the server is away: try the socket again */ }
        connect();
      }, RECONNECT_MS);
    };
  };
  if (info.state === "running") fillNames();
  connect();
}

function wireDrop() {
  const drop = document.getElementById("drop");
  const input = document.getElementById("file");
  if (!drop || !input) return;
  const read = async (file) => {
    try {
      await openReplay(JSON.parse(await file.text()), file.name);
    } catch (err) {
      showError(String(err.message || err));
    }
  };
  input.addEventListener("change", () => input.files[0] && read(input.files[0]));
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    if (e.dataTransfer.files[0]) read(e.dataTransfer.files[0]);
  });
}

async function main() {
  markNav();
  const q = new URLSearchParams(location.search);
  try {
    if (q.get("table")) await openTable(q.get("table"));
    else if (q.get("replay")) await openReplay(await fetchJSON(q.get("replay")), q.get("replay"));
    else if (q.get("file")) await openReplay(await fetchJSON("/api/replay-file"), "");
    else wireDrop();
  } catch (err) {
    console.warn(err);
    showError(String(err.message || err));
  }
}

main();
