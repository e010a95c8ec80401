// Play: a person takes a seat at an open table and plays it in the browser, over the same
// WebSocket protocol as any remote program (POST /tables/ID/join, then WS /ws/play).
//   /play?table=ID           join (or rejoin) a seat at table ID
//   /play?table=ID&start=1   … and start it once the seat is connected (a table made here)
// A signed-in person joins with their session (kind human); without one, an account API key
// works as for programs. The seat's token is kept in this browser (localStorage, per table),
// so a reload reconnects to the same seat and resumes its stream. A person whose browser lost
// it (storage cleared, another device) takes their seat back here: POST /tables/ID/reclaim
// gives a new token, and the old one stops working wherever it was.
// What the person sees comes from the game's viewer module through seat.js (plain language,
// no raw JSON); the controls from each turn's legal actions (or the module's `playControls`).
// A retry of the same turn (a new deadline after a refusal or a missed first deadline) keeps
// the form and what was typed in it.

import { h, clear, calledOff, fetchJSON, markNav, problemText } from "./util.js";
import { controlsOf, buildForm } from "./controls.js";
import { session, post, badge, seatStore, draftStore, KEY_STORE } from "./session.js";
import { seatPanel, happened, moveText, endBanner } from "./seat.js";
import { playNow, takeSeat } from "./tablemaker.js";

const root = document.getElementById("play");
const SOUND_STORE = "cogleague.sound";
const BASE_TITLE = document.title;
const RECONNECT_MS = 1500;

function field(label, input) {
  return h("div", { class: "field" }, h("label", { for: input.id }, label), input);
}

/** Take back the seat this account holds at `tableId` (its token lost from this browser): a new
 * token, kept here; the old one is refused from now on. `key`: an API key, else the session. */
async function reclaimSeat(tableId, key) {
  const url = `/tables/${encodeURIComponent(tableId)}/reclaim`;
  const got = key ? await fetchJSON(url, { method: "POST", headers: { Accept: "application/json", Authorization: `Bearer ${key}` } })
    : await post(url, {});
  const mine = { seat: got.seat, token: got.token };
  localStorage.setItem(seatStore(tableId), JSON.stringify(mine));
  return mine;
}

/** A button that takes the person's seat back on this device, then `onBack(mine)`; a refusal
 * (no seat held here, the table over) is said next to it. */
function reclaimButton(tableId, key, onBack) {
  const problem = h("p", { class: "error", "data-testid": "reclaim-problem", hidden: true });
  const button = h("button", { type: "button", class: "primary", "data-testid": "reclaim-seat", on: { click: async () => {
    button.disabled = true;
    try {
      onBack(await reclaimSeat(tableId, key));
    } catch (err) {
      problem.textContent = problemText(err);
      problem.hidden = false;
      button.disabled = false;
    }
  } } }, "Take my seat back on this device");
  return h("div", { class: "reclaim" }, button, problem);
}

/** The join form: a free seat, taken with the session (or, signed out, an account key). */
function joinForm(table, sess, desc, onJoin) {
  const free = table.seats.filter((x) => !x.taken);
  const seat = h("select", { id: "seat", "data-testid": "seat" }, free.map((x) => h("option", { value: x.seat }, `seat ${x.seat + 1}${x.alias ? ` (${x.alias})` : ""}`)));
  const status = h("p", { class: "muted", role: "status" });
  const deadline = desc?.human?.deadline_s;
  const intro = h("p", { class: "muted" }, Number.isFinite(deadline) ? `At a table for people you get ${deadline} s a turn; this table's own deadline is counted down on every turn.` : "Each turn's deadline is counted down while you decide.");
  const key = sess.signed_in ? null : h("input", { id: "key", type: "password", autocomplete: "off", value: localStorage.getItem(KEY_STORE) ?? "",
    required: true, "data-testid": "key" });
  const name = sess.signed_in ? null : h("input", { id: "name", type: "text", value: "a person", maxlength: 60, "data-testid": "name" });
  const form = h("form", { class: "panel join", "data-testid": "join" },
    h("h2", {}, "Take a seat · table ", h("span", { class: "id" }, table.id)), intro,
    sess.signed_in ? h("p", {}, `You play as ${sess.name}.`)
      : h("p", {}, h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}` }, "Sign in"), " to play with your account, or use an API key:"),
    key ? field("Account API key", key) : null, name ? field("Your name (shown to spectators)", name) : null, field("Seat", seat),
    h("button", { type: "submit", class: "primary", "data-testid": "take-seat" }, "Take the seat"), status);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      let mine;
      if (sess.signed_in) {
        const joined = await takeSeat(table.id, Number(seat.value));
        mine = { seat: joined.seat, token: joined.token };
      } else {
        const joined = await fetchJSON(`/tables/${encodeURIComponent(table.id)}/join`, {
          method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: `Bearer ${key.value}` },
          body: JSON.stringify({ kind: "human", seat: Number(seat.value), name: name.value }) });
        localStorage.setItem(KEY_STORE, key.value);
        mine = { seat: joined.seat ?? Number(seat.value), token: joined.token };
        localStorage.setItem(seatStore(table.id), JSON.stringify(mine));
      }
      onJoin(mine);
    } catch (err) {
      status.textContent = problemText(err);
      status.className = "error";
      if (err?.code === "already_seated") { // this account's seat, its token not in this browser
        status.textContent = "You already hold a seat at this table, but this browser does not have its token (you joined from another browser or device, or this one's storage was cleared). Take it back here: the other browser's connection to it ends.";
        status.after(reclaimButton(table.id, key?.value, onJoin));
      }
    }
  });
  return form;
}

/** What the person entered for a turn, kept in this tab (sessionStorage) as they type, and put
 * back when the same turn comes again after a reload or the back button; a draft of another
 * turn is dropped. */
function keepDraft(form, tableId, turnId) {
  const saved = (() => { try { return JSON.parse(sessionStorage.getItem(draftStore(tableId)) || "null"); } catch { return null; } })();
  if (saved?.turn === turnId && Array.isArray(saved.values)) {
    for (const [name, value] of saved.values) {
      for (const input of form.querySelectorAll(`[data-control="${CSS.escape(name)}"]`)) {
        if (input.type === "radio") input.checked = input.value === value;
        else input.value = value;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
  } else {
    sessionStorage.removeItem(draftStore(tableId));
  }
  const save = () => sessionStorage.setItem(draftStore(tableId), JSON.stringify({ turn: turnId,
    values: [...form.querySelectorAll("[data-control]")].filter((i) => i.type !== "radio" || i.checked).map((i) => [i.dataset.control, i.value]) }));
  form.addEventListener("input", save);
  form.addEventListener("change", save);
}

/** While the table waits for its start: how many seats are taken (read again every few
 * seconds), and a way to give the seat back — the server takes it back only before the start. */
function waitingPanel(table, sess, leaving) {
  const count = (t) => `${t.seats.filter((x) => x.taken).length} of ${t.seats.length} seats taken.`;
  const seatsLine = h("p", { "data-testid": "seats-taken" }, count(table));
  const problem = h("p", { class: "error", role: "status", hidden: true }); // an empty one would show as a red bar
  const leave = h("button", { type: "button", "data-testid": "leave-table" }, "Leave the table (give my seat back)");
  leave.addEventListener("click", async () => {
    leave.disabled = true;
    const url = `/tables/${encodeURIComponent(table.id)}/leave`;
    const key = localStorage.getItem(KEY_STORE);
    try {
      if (sess.signed_in || !key) await post(url, {});
      else await fetchJSON(url, { method: "POST", headers: { Accept: "application/json", Authorization: `Bearer ${key}` } });
      leaving();
      localStorage.removeItem(seatStore(table.id));
      location.assign("/");
    } catch (err) {
      problem.textContent = problemText(err);
      problem.hidden = false;
      leave.disabled = false;
    }
  });
  const box = h("div", { "data-testid": "waiting" }, seatsLine, h("p", {}, leave), problem);
  const look = async () => {
    if (!box.isConnected) return; // the first turn replaced it
    const t = await fetchJSON(`/tables/${encodeURIComponent(table.id)}`).catch(() => null);
    if (t) seatsLine.textContent = count(t);
    if (t && t.state !== "open") { leave.remove(); return; }
    setTimeout(look, 3000);
  };
  setTimeout(look, 3000);
  return box;
}

/** A short tone when a turn arrives, if the person turned sound on (off by default). */
function chime() {
  if (localStorage.getItem(SOUND_STORE) !== "1") return;
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    gain.gain.value = 0.08;
    osc.frequency.value = 660;
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.18);
  } catch { /* no audio here */ }
}

function soundToggle() {
  const box = h("input", { id: "sound", type: "checkbox", checked: localStorage.getItem(SOUND_STORE) === "1" });
  box.addEventListener("change", () => localStorage.setItem(SOUND_STORE, box.checked ? "1" : "0"));
  return h("label", { class: "radio" }, box, " Sound when it is my turn");
}

async function play(table, mine, desc, sess, startIt) {
  const viewer = desc?.viewer ? await import(desc.viewer) : null;
  const ctx = { seat: mine.seat, alias: table.seats[mine.seat]?.alias ?? null, aliases: table.seats.map((x) => x.alias),
    rules: desc?.rule_numbers ?? {}, config: table.config ?? {}, options: desc?.options?.properties ?? {} };
  const turnBox = h("div", { class: "panel", "data-testid": "turn" }, h("p", { class: "muted" }, "Waiting for the table to start…"));
  if (table.state === "open") turnBox.append(waitingPanel(table, sess, () => { ended = true; }));
  const viewBox = h("section", { class: "panel", "aria-labelledby": "view-h" }, h("h2", { id: "view-h" }, "Your view"), h("p", { class: "muted" }, "Your view appears with your first turn."));
  const clock = h("p", { class: "deadline", "data-testid": "deadline" });
  const srClock = h("p", { class: "sr-only", "aria-live": "assertive", "data-testid": "deadline-announce" });
  // each new "what happened" line, read out politely (the visible list is rebuilt every time,
  // which a live region would read out whole)
  const srHappened = h("div", { class: "sr-only", "aria-live": "polite", "data-testid": "happened-announce" });
  const last = h("ul", { class: "feed", "data-testid": "last-round", "aria-label": "what happened" });
  const moves = h("ol", { class: "moves", "data-testid": "moves", "aria-label": "your moves" });
  const status = h("p", { role: "status", "data-testid": "status", class: "muted" });
  const seatLine = h("p", { class: "sub", "data-testid": "seat-line" }, `seat ${mine.seat + 1}`);
  const forget = () => { localStorage.removeItem(seatStore(table.id)); location.assign(`/play?table=${encodeURIComponent(table.id)}`); };
  const refusedBox = h("p", { "data-testid": "seat-refused", hidden: true },
    h("button", { type: "button", "data-testid": "forget-seat", on: { click: forget } }, "Forget this seat and take another"));
  clear(root).append(seatLine, status, refusedBox, srClock, srHappened, h("div", { class: "play-grid" }, h("div", { class: "grid" }, clock, turnBox, viewBox),
    h("div", { class: "grid" }, h("section", { class: "panel", "aria-labelledby": "happened-h" }, h("h2", { id: "happened-h" }, "What happened"), last),
      h("section", { class: "panel", "aria-labelledby": "moves-h" }, h("h2", { id: "moves-h" }, "Your moves"), moves, h("p", {}, soundToggle())))));
  let lastSeq = 0, timer = null, ended = false, pending = null, lastView = null, lost = false, shownTitle = "";
  const lines = [];
  // "Your moves" lists what the table holds: a move is listed once the server acknowledged it,
  // and a turn asked again (a server that restarted before the step was recorded, a move lost
  // on a dropped socket) takes that move and every later one off the list
  // (kept with the seat in this browser, so a reload shows them again)
  const sentText = new Map(); // turn id -> the move's line, until its ack
  const listed = []; // [{ turn, text, li }] in the order played
  const keep = () => {
    if (ended || !localStorage.getItem(seatStore(table.id))) return; // forgotten or over
    localStorage.setItem(seatStore(table.id), JSON.stringify({ ...mine, moves: listed.map(({ turn, text }) => ({ turn, text })) }));
  };
  const list = (turn, text) => {
    const li = h("li", { "data-turn": turn }, text);
    moves.append(li);
    listed.push({ turn, text, li });
  };
  for (const m of Array.isArray(mine.moves) ? mine.moves : []) list(m.turn, m.text);
  const unlist = (turnId) => {
    const at = listed.findIndex((m) => m.turn === turnId);
    if (at < 0) return false;
    for (const m of listed.splice(at)) m.li.remove();
    keep();
    return true;
  };
  const acked = (turnId) => {
    const text = sentText.get(turnId);
    sentText.delete(turnId);
    if (text === undefined || listed.some((m) => m.turn === turnId)) return;
    list(turnId, text);
    keep();
  };
  const showEvent = (ev) => {
    const line = happened(viewer, ev, lastView, ctx);
    if (!line) return;
    lines.push(line);
    srHappened.append(h("p", {}, line));
    while (srHappened.childElementCount > 6) srHappened.firstElementChild.remove();
    clear(last).append(...lines.slice(-14).reverse().map((l, i) => h("li", { class: i === 0 ? "now" : "", "data-testid": "happened" }, h("span", { class: "txt" }, l))));
  };
  const countdown = (deadlineAt) => {
    clearInterval(timer);
    let told = null;
    const tick = () => {
      const left = Math.max(0, Math.round((deadlineAt - Date.now()) / 1000));
      clock.textContent = `Deadline: ${left} s left to decide`;
      clock.classList.toggle("late", left <= 5);
      const mark = left <= 5 ? 5 : left <= 10 ? 10 : null; // screen readers hear the start, 10 s and 5 s
      if (mark !== null && mark !== told && left > 0 && pending) { told = mark; srClock.textContent = `${left} seconds left to decide.`; }
      if (!left) {
        clearInterval(timer);
        // no move went out in time: the server now plays the game's default for this seat and
        // would answer any move "too late", so the form stops offering to send one
        const send = turnBox.querySelector("[data-testid=send]");
        if (pending && send && !send.disabled) {
          send.disabled = true;
          status.textContent = "Time is up for this turn: the game's default move counts for you, unless the table gives you more time.";
          status.className = "error";
          srClock.textContent = status.textContent;
          document.title = BASE_TITLE;
        }
      }
    };
    tick();
    timer = setInterval(tick, 500);
  };
  const showTurn = (turn, ws) => {
    const again = pending === turn.turn_id && turnBox.querySelector("[data-testid=move-form]");
    const relost = unlist(turn.turn_id);
    const sayLost = () => {
      if (!relost) return;
      status.textContent = "The table did not keep your move for this turn (the server restarted or the connection dropped before it was recorded): send it again.";
      status.className = "error";
    };
    // the last turn got no move before its deadline and a new one replaced it: said, or the
    // form would switch (to another opponent, another round) under the person without a word
    const missed = pending !== null && pending !== turn.turn_id && !sentText.has(pending) && !listed.some((m) => m.turn === pending);
    const missedWhen = shownTitle;
    pending = turn.turn_id;
    lastView = turn.visible_state ?? lastView;
    document.title = `▶ Your turn · ${BASE_TITLE}`;
    // the time left as the server counts it (`deadline_ms`), on this device's clock: a phone
    // whose clock is off would count `deadline_at` (server time) down wrongly
    const due = Number.isFinite(turn.deadline_ms) ? Date.now() + turn.deadline_ms : turn.deadline_at;
    countdown(due);
    srClock.textContent = `Your turn. ${Math.max(0, Math.round((due - Date.now()) / 1000))} seconds to decide.`;
    if (again) { // a retry of the same turn: keep what the person entered
      const hint = turnBox.querySelector("[data-testid=hint]");
      hint.textContent = turn.hint ? `Try again: ${turn.hint}` : "A new deadline for the same turn: your entries are kept.";
      hint.hidden = false;
      turnBox.querySelector("[data-testid=send]").disabled = false;
      status.textContent = "";
      document.body.dataset.turn = turn.turn_id;
      document.body.dataset.retries = String(Number(document.body.dataset.retries || 0) + 1);
      sayLost();
      return;
    }
    const controls = viewer?.playControls ? viewer.playControls(turn.legal_actions, turn.visible_state, ctx.rules) : controlsOf(turn.legal_actions);
    const form = buildForm(controls);
    const send = h("button", { type: "submit", class: "primary", "data-testid": "send" }, "Send my move");
    const el = h("form", { class: "move", "data-testid": "move-form" }, form.fields, send);
    keepDraft(el, table.id, turn.turn_id);
    el.addEventListener("submit", (e) => {
      e.preventDefault();
      sessionStorage.removeItem(draftStore(table.id));
      const action = form.read();
      ws.send(JSON.stringify({ type: "move", turn_id: turn.turn_id, ...action }));
      send.disabled = true;
      status.textContent = "Move sent.";
      status.className = "muted";
      document.title = BASE_TITLE;
      sentText.set(turn.turn_id, moveText(viewer, action, turn.visible_state, ctx));
    });
    const when = viewer?.playTurnTitle ? viewer.playTurnTitle(turn.visible_state, ctx) : Number.isInteger(turn.visible_state?.round) ? `round ${turn.visible_state.round + 1}` : "";
    status.textContent = missed // the last turn's "Move received" is not this turn's
      ? `Time ran out on your last turn${missedWhen ? ` (${missedWhen})` : ""}: the game's default move counted for you. This is your next turn.`
      : "";
    status.className = missed ? "error" : "muted";
    shownTitle = when;
    clear(turnBox).append(h("h2", {}, `Your turn${when ? ` · ${when}` : ""}`),
      h("p", { class: "error", "data-testid": "hint", hidden: !turn.hint }, turn.hint ?? ""), el);
    clear(viewBox).append(h("h2", { id: "view-h" }, "Your view"), seatPanel(viewer, turn.visible_state, ctx));
    el.querySelector("input, select, textarea")?.focus();
    document.body.dataset.turn = turn.turn_id;
    sayLost();
    chime();
  };
  const again = h("p", {}, sess.signed_in && desc
    ? h("button", { type: "button", class: "primary", "data-testid": "play-again", on: { click: (e) => {
      const button = e.currentTarget;
      button.disabled = true; // a double click makes one table
      playNow(desc).catch((err) => { button.disabled = false; status.textContent = problemText(err); });
    } } }, "Play again")
    : h("a", { href: "/" }, "Back to the Lobby"),
  " ", h("a", { href: `/theater?table=${encodeURIComponent(table.id)}` }, "Watch the replay →"));
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/play?table=${encodeURIComponent(table.id)}&seat=${mine.seat}` +
      `&token=${encodeURIComponent(mine.token)}`);
    let opened = false;
    ws.onopen = () => {
      opened = true;
      refusedBox.hidden = true;
      if (lost) { lost = false; status.textContent = "Connected again."; status.className = "muted"; }
      if (lastSeq) ws.send(JSON.stringify({ type: "resume", last_seq: lastSeq }));
      document.body.dataset.ready = "play";
    };
    ws.onmessage = (msg) => {
      const f = JSON.parse(msg.data);
      if (typeof f.seq === "number" && f.type === "event") {
        if (f.seq <= lastSeq) return;
        lastSeq = f.seq;
      }
      if (f.type === "hello") {
        ctx.alias = f.alias ?? ctx.alias;
        seatLine.textContent = `You are ${f.alias ?? `seat ${f.seat + 1}`} at table ${table.id} (${desc?.title ?? f.game}).`;
        if (startIt && f.state === "open") {
          startIt = false;
          history.replaceState(null, "", `/play?table=${encodeURIComponent(table.id)}`);
          post(`/tables/${encodeURIComponent(table.id)}/start`)
            .catch((err) => { status.textContent = `Could not start the table: ${problemText(err)}`; status.className = "error"; });
        }
      } else if (f.type === "your_turn") showTurn(f, ws);
      else if (f.type === "snapshot" && f.your_turn) showTurn(f.your_turn, ws);
      else if (f.type === "ack") {
        acked(f.turn_id);
        if (f.turn_id === undefined || f.turn_id === pending) { // this turn is answered: no clock to beat
          clearInterval(timer);
          clock.textContent = "";
          clock.classList.remove("late");
        }
        status.textContent = "Move received. Waiting for the others…";
        status.className = "muted";
      }
      else if (f.type === "error") {
        status.textContent = `Refused: ${f.message}`;
        status.className = "error";
        if (f.code !== "too_late") turnBox.querySelector("[data-testid=send]")?.removeAttribute("disabled"); // a late turn takes no other move
      }
      else if (f.type === "event") showEvent({ kind: f.event, ...f.payload });
      else if (f.type === "ping") ws.send(JSON.stringify({ type: "pong" }));
      else if (f.type === "end") {
        ended = true;
        pending = null;
        clearInterval(timer);
        clock.textContent = "";
        status.textContent = ""; // "Waiting for the others…" is over: the banner says how it ended
        status.className = "muted";
        document.title = `Game over · ${BASE_TITLE}`;
        // the whole table's results (public once it ended) rank the seat; the end frame has only its own
        fetchJSON(`/tables/${encodeURIComponent(table.id)}/results`).catch(() => f.results).then((results) => {
          clear(turnBox).append(endBanner(viewer, results, f.reason, mine.seat, again, desc?.score_label));
          srClock.textContent = `The game is over. ${turnBox.querySelector("[data-testid=end-standing]")?.textContent ?? ""}`;
          turnBox.querySelector("[data-testid=play-again]")?.focus();
          document.body.dataset.ended = "1";
        });
        localStorage.removeItem(seatStore(table.id));
        clear(viewBox).append(h("h2", { id: "view-h" }, "Your view"), h("p", { class: "muted" }, "The table is over."));
      }
    };
    ws.onclose = async () => { // the server went away (or restarts): say so while trying again
      if (ended) return;
      // refused at the upgrade while the server answers: not a lost connection but a seat the
      // server does not take (a token no longer valid, or a table moving between processes)
      const refused = !opened && await fetch(`/tables/${encodeURIComponent(table.id)}`, { headers: { Accept: "application/json" } })
        .then((res) => res.ok, () => false);
      if (refused) {
        if (!refusedBox.hidden) { setTimeout(connect, RECONNECT_MS); return; } // said already
        lost = true;
        status.textContent = `The server does not accept this browser's seat at table ${table.id} (its token may no longer be valid); trying again every ${RECONNECT_MS / 1000} s…`;
        status.className = "error";
        refusedBox.hidden = false;
      } else if (!lost || !refusedBox.hidden) {
        refusedBox.hidden = true;
        lost = true;
        status.textContent = `Connection to the server lost; trying again every ${RECONNECT_MS / 1000} s…`;
        status.className = "error";
        turnBox.querySelector("[data-testid=send]")?.setAttribute("disabled", "");
      }
      setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();
}

/** The open or running tables this browser keeps a seat at (a person who left mid-game through
 * the header's "Play"): a way back to each. */
async function keptSeats() {
  const ids = Object.keys(localStorage).filter((k) => k.startsWith(seatStore(""))).map((k) => k.slice(seatStore("").length));
  const [games, tables] = await Promise.all([fetchJSON("/api/games").catch(() => ({ games: [] })),
    Promise.all(ids.map((t) => fetchJSON(`/tables/${encodeURIComponent(t)}`).catch(() => null)))]);
  return tables.filter((t) => t && (t.state === "open" || t.state === "running")).map((t) => {
    const title = games.games.find((g) => g.name === t.game)?.title ?? t.game;
    return h("li", {}, `${title}, ${t.state === "open" ? "not started yet" : `${t.rounds_played ?? 0} rounds played`}: `,
      h("a", { href: `/play?table=${encodeURIComponent(t.id)}`, "data-testid": "back-to-seat" }, "Back to my seat →"));
  });
}

async function main() {
  markNav();
  badge();
  const query = new URLSearchParams(location.search);
  const id = query.get("table");
  if (!id) {
    const seated = await keptSeats();
    clear(root).append(...(seated.length ? [h("section", { class: "panel", "aria-labelledby": "seated-h" },
      h("h2", { id: "seated-h" }, "Your games"), h("ul", {}, seated))] : []),
    h("p", {}, "Pick a game under “Play now” in the ", h("a", { href: "/" }, "Lobby"), ", or an open table there, and take a seat."));
    document.body.dataset.ready = "play";
    return;
  }
  try {
    const [table, games, sess] = await Promise.all([fetchJSON(`/tables/${encodeURIComponent(id)}`), fetchJSON("/api/games"), session()]);
    const desc = games.games.find((g) => g.name === table.game);
    document.getElementById("title").textContent = `Play ${desc?.title ?? table.game}`;
    const saved = JSON.parse(localStorage.getItem(seatStore(id)) || "null");
    if (saved) return play(table, saved, desc, sess, query.get("start") === "1"); // a reload: the same seat, resumed
    if (table.state === "aborted") { // nothing was played out: say why, and no replay to offer
      clear(root).append(h("div", { class: "error", "data-testid": "not-open" }, await calledOff(id)),
        h("p", {}, h("a", { href: "/" }, "Back to the Lobby")));
      document.body.dataset.ready = "error";
      return;
    }
    if (table.state !== "open") { // no seat to take: say so, and where to watch it instead of a dead end
      clear(root).append(...[h("div", { class: "error", "data-testid": "not-open" }, `Table ${id} is ${table.state}: seats are taken only while it is open.`),
        h("p", {}, h("a", { href: `/theater?table=${encodeURIComponent(id)}`, "data-testid": "watch-instead" },
          table.state === "running" ? "Watch it live →" : "Watch the replay →"), " · ", h("a", { href: "/" }, "Back to the Lobby")),
        table.state === "running" && sess.signed_in
          ? h("div", { class: "panel" }, h("p", {}, "Playing at this table from another browser or device, or lost this one's seat? Take your seat back here (the other connection to it ends)."),
            reclaimButton(id, null, (mine) => play(table, mine, desc, sess, false)))
          : table.state === "running" && table.seats.some((x) => x.person) // signed out, or a new device not signed in yet
            ? h("p", { class: "panel" }, "Your seat at this table? ",
              h("a", { href: `/signin?next=${encodeURIComponent(location.pathname + location.search)}`, "data-testid": "signin-to-reclaim" },
                "Sign in to take it back"), " (the other connection to it ends).")
            : null].filter(Boolean)); // Element.append writes a null as the word "null"
      document.body.dataset.ready = "error";
      return;
    }
    clear(root).append(joinForm(table, sess, desc, (mine) => play(table, mine, desc, sess, false)));
    document.body.dataset.ready = "join";
  } catch (err) { // e.g. a link to a table this server does not have: say so, and the way back
    clear(root).append(h("div", { class: "error", "data-testid": "error" }, problemText(err)),
      h("p", {}, h("a", { href: "/" }, "Back to the Lobby")));
    document.body.dataset.ready = "error";
  }
}

main();
