// The Theater: one viewer for replay files and live tables.
//   /theater?replay=URL   a replay document at URL (e.g. /tables/ID/replay)
//   /theater?file=1       the replay that `cogleague replay open FILE` serves (/api/replay-file)
//   /theater?table=ID     a live table: GET /tables/ID, then WS /ws/watch?table=ID
// A replay can also be dropped onto the page. Which game it is, and which module draws it, come
// from the server's catalog (GET /api/games: each game's `replay_format`, `viewer` module URL
// and `rule_numbers`); a game without a viewer module gets the generic renderer.

import { Story } from "./story.js";
import { Scrubber } from "./scrubber.js";
import { genericViewer } from "./generic.js";
import { h, clear, calledOff, fetchJSON, markNav, playedVariant, problemText } from "./util.js";

let catalog = null;
/** The installed games, once per page: [{name, title, replay_format, viewer, rule_numbers}]. */
function games() {
  catalog ??= fetchJSON("/api/games").then((doc) => doc.games);
  return catalog;
}

/** A game's viewer: its own module when the descriptor names one, else the generic renderer. */
async function viewerOf(desc) {
  return desc.viewer ? import(desc.viewer) : genericViewer(desc);
}

/** The meta a viewer built, with the rule numbers the server serves for the game. */
function withRules(meta, desc) {
  meta.rules = { ...(desc.rule_numbers || {}) };
  meta.game = desc.name;
  meta.defaultVariant = desc.default_variant ?? null; // what a table naming none plays
  return meta;
}

const RECONNECT_MS = 2000;
const FINISH_POLLS = 40, FINISH_POLL_MS = 250;

const root = document.getElementById("theater");
const bar = document.getElementById("scrubber");
const title = document.getElementById("title");
const badges = document.getElementById("badges");

/** What went wrong, in words (without the request path `fetchJSON` puts first), and the way
 * back to the Lobby. */
function showError(err) {
  clear(root).append(h("div", { class: "error", "data-testid": "error" }, problemText(err)),
    h("p", {}, h("a", { href: "/" }, "Back to the Lobby")));
  document.body.dataset.ready = "error";
}

async function gameOfReplay(doc) {
  const known = await games();
  const desc = known.find((g) => g.replay_format === doc?.format);
  if (!desc) {
    throw new Error(`not a cogleague replay: format ${JSON.stringify(doc?.format)} ` +
      `(known: ${known.map((g) => g.replay_format).join(", ")})`);
  }
  return desc;
}

let current = null; // the mounted story: {scrubber, redraw}
let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => current?.redraw(), 120);
});

/** The badges over the stage: replay, live, a table that has not started yet, or a live
 * table out of reach (its socket closed and the page is trying again). */
function badgeOf(mode) {
  if (mode === "live") return h("span", { class: "pill live", "data-testid": "live" }, "● live");
  if (mode === "lost") return h("span", { class: "pill", "data-testid": "connection-lost" }, "○ connection lost: trying again…");
  if (mode === "waiting") return h("span", { class: "pill wait", "data-testid": "waiting" }, "◌ not started");
  if (mode === "aborted") return h("span", { class: "pill", "data-testid": "aborted" }, "■ called off");
  return h("span", { class: "pill" }, "replay");
}

/** Mount a story into the page: the game draws, the scrubber moves. */
function theaterFor(game, story, { mode = "replay", label = "" } = {}) {
  current?.scrubber.destroy();
  const meta = story.meta;
  const live = mode !== "replay";
  const variant = playedVariant(meta.variant, { default_variant: meta.defaultVariant });
  title.textContent = `${game.title}${variant ? ` · ${variant}` : ""}`;
  const badge = h("span", { "aria-live": "polite" }, badgeOf(mode));
  clear(badges).append(...[
    badge,
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
  current = { scrubber, redraw: () => draw(shown), setMode: (m) => clear(badge).append(badgeOf(m)) };
  return current;
}

/** The reason an episode nobody came to ends with (the game's declared connect timeout,
 *  GET /api/games `connect_timeout`), when this replay ended that way; else null. */
export function nobodyCame(desc, doc) {
  const reason = desc?.connect_timeout?.reason;
  const ended = doc?.results?.reason ?? doc?.reason;
  return reason && ended === reason ? reason : null;
}

/** An episode nobody came to is one of the rules' endings, not an error: say what happened. */
function nobodyCamePanel(reason) {
  return h("div", { class: "panel no-players", "data-testid": "no-players" },
    h("h2", {}, "Nobody came to play"),
    h("p", {}, "No seat connected within the connect timeout, so the episode ended before its first round " +
      `(reason ${reason}): zero rounds, every score zero. This is one of the game's endings, not an error.`));
}

async function openReplay(doc, label, { atEnd = false } = {}) {
  const desc = await gameOfReplay(doc);
  const game = await viewerOf(desc);
  const meta = withRules(game.metaFromReplay(doc), desc);
  const story = new Story(game, meta);
  for (const ev of game.eventsOfReplay(doc)) story.push(ev);
  const { scrubber } = theaterFor(game, story, { label });
  const unplayed = nobodyCame(desc, doc);
  if (unplayed) {
    root.prepend(nobodyCamePanel(unplayed));
    badges.append(h("span", { class: "pill", "data-testid": "reason" }, unplayed));
  }
  scrubber.follow = atEnd;
  scrubber.refresh();
  scrubber.go(atEnd ? scrubber.last() : 0);
  document.body.dataset.ready = "replay";
}

/** A not-started table says so, with its seats, instead of empty panels. */
function waitingPanel(info) {
  const seats = info.seats || [];
  const taken = seats.filter((x) => x.taken).length;
  return h("div", { class: "panel waiting", "data-testid": "not-started" },
    h("h2", {}, "This table has not started yet"),
    h("p", {}, `${taken} of ${info.num_seats ?? seats.length} seats are taken. The view fills in as soon as play begins.`),
    h("ul", { class: "seats" }, seats.map((x) => h("li", { class: `seat ${x.taken ? "" : "free"}` },
      x.taken ? `✔ ${x.alias ?? `seat ${x.seat + 1}`}` : `○ seat ${x.seat + 1} free`))));
}

async function openTable(id) {
  const tableUrl = `/tables/${encodeURIComponent(id)}`;
  const info = await fetchJSON(tableUrl);
  const finish = async () => openReplay(await fetchJSON(`${tableUrl}/replay`), `table ${id}`, { atEnd: true });
  if (info.state === "finished") return finish(); // the full replay: promises and memos too
  if (info.state === "aborted") throw new Error(await calledOff(id));
  const desc = (await games()).find((g) => g.name === info.game);
  if (!desc) throw new Error(`table ${id} plays an unknown game ${JSON.stringify(info.game)}`);
  const game = await viewerOf(desc);
  const meta = withRules(game.metaFromTable(info), desc);
  const story = new Story(game, meta);
  let started = info.state === "running";
  let waiting = null;
  if (!started) {
    // an open table: say so, and keep the (empty) stage out of sight until play begins
    waiting = waitingPanel(info);
  }
  const mounted = theaterFor(game, story, { mode: started ? "live" : "waiting", label: `table ${id}` });
  if (waiting) {
    root.prepend(waiting);
    root.classList.add("not-started");
  }
  const markStarted = () => {
    if (started) return;
    started = true;
    waiting?.remove();
    root.classList.remove("not-started");
    mounted.setMode("live");
  };
  // What a spectator may see of the table right now (GET /tables/ID/spectator): a viewer folds
  // it as a `spectator_state` event, e.g. scores the public event stream leaves out.
  let asking = false, again = false;
  const spectate = async () => {
    if (asking) { again = true; return; }
    asking = true;
    try {
      do {
        again = false;
        const view = await fetchJSON(`${tableUrl}/spectator`);
        if (view.running === false) break; // not started, or just ended: the events carry on
        const names = view.policy_names ?? view.policies ?? null;
        if (Array.isArray(names)) meta.names = names;
        story.push({ kind: "spectator_state", state: view });
        refresh();
      } while (again);
    } catch { /* not running (yet, or any more): the events carry on */ }
    asking = false;
  };
  let lastSeq = 0;
  let ended = false;
  let queued = false;
  const refresh = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; mounted.scrubber.refresh(); });
  };
  // a table called off while watched (an operator's abort, a table that could not go on):
  // no replay follows, so the picture stops with a word why instead of "● live"
  const calledOffHere = async () => {
    mounted.setMode("aborted");
    root.prepend(h("div", { class: "error", role: "status", "data-testid": "called-off" }, await calledOff(id)));
    document.body.dataset.ready = "aborted";
  };
  const onEnd = async () => {
    if (ended) return;
    ended = true;
    document.body.dataset.ended = "1";
    // The replay is written when the table is marked finished: ask for it only then.
    for (let tries = 0; tries < FINISH_POLLS; tries++) {
      try {
        const state = (await fetchJSON(tableUrl)).state;
        if (state === "finished") return await finish();
        if (state === "aborted") return await calledOffHere();
      } catch (err) { console.warn(err); }
      await new Promise((ok) => setTimeout(ok, FINISH_POLL_MS));
    }
  };
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/watch?table=${encodeURIComponent(id)}` +
      (lastSeq ? `&last_seq=${lastSeq}` : ""));
    ws.onopen = () => {
      document.body.dataset.ready = started ? "live" : "waiting";
      mounted.setMode(started ? "live" : "waiting"); // back from "connection lost"
    };
    ws.onmessage = (msg) => {
      const frame = JSON.parse(msg.data);
      if (frame.type === "event") {
        if (typeof frame.seq === "number") {
          if (frame.seq <= lastSeq) return; // already folded
          lastSeq = frame.seq;
        }
        if (!started) { markStarted(); document.body.dataset.ready = "live"; }
        const opened = story.push({ kind: frame.event, ...(frame.payload || {}) });
        if (opened || story.events === 1) spectate();
        document.body.dataset.events = String(story.events);
        refresh();
      } else if (frame.type === "ping") {
        ws.send(JSON.stringify({ type: "pong" }));
      } else if (frame.type === "end") {
        onEnd();
      }
    };
    ws.onclose = () => {
      if (!ended) mounted.setMode("lost"); // not "● live" over a picture that stopped moving
      if (!ended) setTimeout(async () => {
        try {
          const state = (await fetchJSON(tableUrl)).state;
          if (state === "finished" || state === "aborted") return onEnd();
        } catch { /* the server is away: try the socket again */ }
        connect();
      }, RECONNECT_MS);
    };
  };
  if (started) spectate();
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
      showError(err);
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
    // a replay address that does not load: name it, since the server's "Not Found" alone does not
    showError(q.get("replay") && !q.get("table") ? `The replay ${q.get("replay")} could not be loaded: ${problemText(err)}` : err);
  }
}

main();
