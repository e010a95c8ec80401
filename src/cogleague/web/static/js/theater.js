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

/** Mount a story into the page: the game draws, the scrubber moves. */
function theaterFor(game, story, { live = false, label = "" } = {}) {
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
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => draw(shown), 120);
  });
  window.theater = { story, scrubber }; // for people poking at a replay in the console, and tests
  return { scrubber, redraw: () => draw(shown) };
}

async function openReplay(doc, label) {
  const name = gameOfReplay(doc);
  const game = await GAMES[name]();
  const meta = game.metaFromReplay(doc);
  const story = new Story(game, meta);
  for (const ev of game.eventsOfReplay(doc)) story.push(ev);
  const { scrubber } = theaterFor(game, story, { label });
  scrubber.follow = false;
  scrubber.refresh();
  scrubber.go(0);
  document.body.dataset.ready = "replay";
}

async function openTable(id) {
  const table = await fetchJSON(`/tables/${encodeURIComponent(id)}`);
  const info = table.table ?? table;
  if (info.state === "finished") {
    // A finished table is watched from its full replay (promises and memos included).
    return openReplay(await fetchJSON(`/tables/${encodeURIComponent(id)}/replay`), `table ${id}`);
  }
  const name = info.game;
  if (!GAMES[name]) throw new Error(`table ${id} plays an unknown game ${JSON.stringify(name)}`);
  const game = await GAMES[name]();
  let story = new Story(game, game.metaFromTable(info));
  let mounted = theaterFor(game, story, { live: true, label: `table ${id}` });
  let lastSeq = -1;
  let redrawQueued = false;
  const redraw = () => {
    if (redrawQueued) return;
    redrawQueued = true;
    requestAnimationFrame(() => {
      redrawQueued = false;
      mounted.scrubber.refresh();
    });
  };
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/watch?table=${encodeURIComponent(id)}`);
    ws.onmessage = (msg) => {
      const frame = JSON.parse(msg.data);
      if (frame.type === "event") {
        if (typeof frame.seq === "number") {
          if (frame.seq <= lastSeq) return; // already folded (a resent event)
          lastSeq = frame.seq;
        }
        story.push({ kind: frame.event, ...(frame.payload || {}) });
        document.body.dataset.events = String(story.events);
        redraw();
      } else if (frame.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
      } else if (frame.type === "end") {
        document.body.dataset.ended = "1";
      }
    };
    ws.onopen = () => {
      document.body.dataset.ready = "live";
      if (lastSeq >= 0) ws.send(JSON.stringify({ type: "resume", last_seq: lastSeq }));
    };
    ws.onclose = () => {
      if (document.body.dataset.ended) return;
      setTimeout(async () => {
        // The table may have finished while we were away: then the replay tells the rest.
        try {
          const now = await fetchJSON(`/tables/${encodeURIComponent(id)}`);
          if ((now.table ?? now).state === "finished") {
            document.body.dataset.ended = "1";
            return;
          }
        } catch { /* server away: try the socket again */ }
        connect();
      }, RECONNECT_MS);
    };
  };
  connect();
  void story; void mounted;
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
