// Play: a person takes a seat at an open table and plays it in the browser, over the same
// WebSocket protocol as any remote program (POST /tables/ID/join, then WS /ws/play).
//   /play?table=ID   join (or rejoin) a seat at table ID
// The seat's token is kept in this browser (localStorage, per table), so a reload reconnects to
// the same seat and resumes its stream. The controls come from each turn's legal actions (or
// the game viewer's `playControls`, and its `playTurnTitle` names the round), the view is the seat's own, and the deadline counts down.

import { h, clear, fetchJSON, markNav } from "./util.js";
import { controlsOf, buildForm } from "./controls.js";

const root = document.getElementById("play");
const KEY_STORE = "cogleague.key";
const seatStore = (id) => `cogleague.seat.${id}`;

function field(label, input) {
  return h("div", { class: "field" }, h("label", { for: input.id }, label), input);
}

/** The join form: an account key (kept in this browser) and a free seat. */
function joinForm(table, onJoin) {
  const key = h("input", { id: "key", type: "password", autocomplete: "off", value: localStorage.getItem(KEY_STORE) ?? "",
    required: true, "data-testid": "key" });
  const name = h("input", { id: "name", type: "text", value: "a person", maxlength: 60, "data-testid": "name" });
  const free = table.seats.filter((x) => !x.taken);
  const seat = h("select", { id: "seat", "data-testid": "seat" }, free.map((x) => h("option", { value: x.seat }, `seat ${x.seat}${x.alias ? ` (${x.alias})` : ""}`)));
  const status = h("p", { class: "muted", role: "status" });
  const form = h("form", { class: "panel join", "data-testid": "join" },
    h("h2", {}, `Take a seat · table ${table.id}`),
    field("Account API key", key), field("Your name (shown to spectators)", name), field("Seat", seat),
    h("button", { type: "submit", class: "primary", "data-testid": "take-seat" }, "Take the seat"), status);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const joined = await fetchJSON(`/tables/${encodeURIComponent(table.id)}/join`, {
        method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: `Bearer ${key.value}` },
        body: JSON.stringify({ kind: "remote", seat: Number(seat.value), name: name.value }) });
      localStorage.setItem(KEY_STORE, key.value);
      const mine = { seat: joined.seat ?? Number(seat.value), token: joined.token };
      localStorage.setItem(seatStore(table.id), JSON.stringify(mine));
      onJoin(mine);
    } catch (err) {
      status.textContent = String(err.message || err);
      status.className = "error";
    }
  });
  return form;
}

/** A readable rendering of the seat's own view: scalars as a list, nested parts as JSON. */
function viewPanel(view) {
  const rows = Object.entries(view || {}).map(([k, v]) => h("div", { class: "kv" }, h("dt", {}, k.replaceAll("_", " ")),
    h("dd", {}, v !== null && typeof v === "object" ? h("pre", { tabindex: 0 }, JSON.stringify(v, null, 1)) : String(v))));
  return h("dl", { class: "view", "data-testid": "view" }, rows);
}

async function play(table, mine, desc) {
  const viewer = desc?.viewer ? await import(desc.viewer) : null;
  const turnBox = h("div", { class: "panel", "data-testid": "turn" }, h("p", { class: "muted" }, "Waiting for the table to start…"));
  const clock = h("p", { class: "deadline", "data-testid": "deadline" });
  const last = h("ul", { class: "feed", "data-testid": "last-round", "aria-label": "what happened" });
  const status = h("p", { role: "status", "data-testid": "status", class: "muted" });
  const seatLine = h("p", { class: "sub", "data-testid": "seat-line" }, `seat ${mine.seat}`);
  clear(root).append(seatLine, status, h("div", { class: "play-grid" }, h("div", { class: "grid" }, clock, turnBox),
    h("div", { class: "panel" }, h("h2", {}, "What happened"), last)));
  let lastSeq = 0, timer = null, ended = false, pending = null;
  const events = [];
  const showEvents = () => {
    clear(last).append(...events.slice(-12).reverse().map((e) => h("li", {}, h("span", { class: "tag" }, e.kind),
      h("span", { class: "txt" }, Object.entries(e).filter(([k]) => k !== "kind").map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ")))));
  };
  const countdown = (deadlineAt) => {
    clearInterval(timer);
    const tick = () => {
      const left = Math.max(0, Math.round((deadlineAt - Date.now()) / 1000));
      clock.textContent = `Deadline: ${left} s left to decide`;
      clock.classList.toggle("late", left <= 5);
      if (!left) clearInterval(timer);
    };
    tick();
    timer = setInterval(tick, 500);
  };
  const showTurn = (turn, ws) => {
    pending = turn.turn_id;
    const controls = viewer?.playControls ? viewer.playControls(turn.legal_actions, turn.visible_state, desc?.rule_numbers ?? {}) : controlsOf(turn.legal_actions);
    const form = buildForm(controls);
    const send = h("button", { type: "submit", class: "primary", "data-testid": "send" }, "Send my move");
    const el = h("form", { class: "move", "data-testid": "move-form" }, form.fields, send);
    el.addEventListener("submit", (e) => {
      e.preventDefault();
      ws.send(JSON.stringify({ type: "move", turn_id: turn.turn_id, ...form.read() }));
      send.disabled = true;
      status.textContent = "Move sent.";
    });
    const round = turn.visible_state?.round;
    const when = viewer?.playTurnTitle ? viewer.playTurnTitle(turn.visible_state) : round !== undefined ? `round ${round}` : "";
    status.textContent = ""; // the last turn's "Move received" is not this turn's
    status.className = "muted";
    clear(turnBox).append(...[h("h2", {}, `Your turn${when ? ` · ${when}` : ""}`),
      turn.hint ? h("p", { class: "error" }, turn.hint) : null, el,
      h("details", { open: true }, h("summary", {}, "Your view"), viewPanel(turn.visible_state))].filter(Boolean));
    countdown(turn.deadline_at);
    el.querySelector("input, select")?.focus();
    document.body.dataset.turn = turn.turn_id;
  };
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/play?table=${encodeURIComponent(table.id)}&seat=${mine.seat}` +
      `&token=${encodeURIComponent(mine.token)}`);
    ws.onopen = () => {
      if (lastSeq) ws.send(JSON.stringify({ type: "resume", last_seq: lastSeq }));
      document.body.dataset.ready = "play";
    };
    ws.onmessage = (msg) => {
      const f = JSON.parse(msg.data);
      if (typeof f.seq === "number" && f.type === "event") {
        if (f.seq <= lastSeq) return;
        lastSeq = f.seq;
      }
      if (f.type === "hello") seatLine.textContent = `You are ${f.alias ?? `seat ${f.seat}`} at ${desc?.title ?? f.game} table ${table.id}.`;
      else if (f.type === "your_turn") showTurn(f, ws);
      else if (f.type === "snapshot" && f.your_turn) showTurn(f.your_turn, ws);
      else if (f.type === "ack") status.textContent = "Move received. Waiting for the others…";
      else if (f.type === "error") { status.textContent = `Refused: ${f.message}`; status.className = "error"; turnBox.querySelector("[data-testid=send]")?.removeAttribute("disabled"); }
      else if (f.type === "event") { events.push({ kind: f.event, ...f.payload }); showEvents(); }
      else if (f.type === "ping") ws.send(JSON.stringify({ type: "pong" }));
      else if (f.type === "end") {
        ended = true;
        clearInterval(timer);
        clock.textContent = "";
        clear(turnBox).append(h("div", { class: "card", "data-testid": "endcard" }, h("h2", {}, `The table is over (${f.reason})`),
          viewPanel(f.results), h("p", {}, h("a", { href: `/theater?table=${encodeURIComponent(table.id)}` }, "Watch the replay →"))));
        localStorage.removeItem(seatStore(table.id));
        document.body.dataset.ended = "1";
      }
      if (f.type !== "your_turn" && f.type !== "snapshot" && pending && f.type === "event") { /* the turn stays until acked */ }
    };
    ws.onclose = () => { if (!ended) setTimeout(connect, 1500); };
  };
  connect();
}

async function main() {
  markNav();
  const id = new URLSearchParams(location.search).get("table");
  if (!id) {
    clear(root).append(h("p", {}, "Pick an open table in the ", h("a", { href: "/" }, "Lobby"), " and choose “Play as a person”."));
    document.body.dataset.ready = "play";
    return;
  }
  try {
    const [table, games] = await Promise.all([fetchJSON(`/tables/${encodeURIComponent(id)}`), fetchJSON("/api/games")]);
    const desc = games.games.find((g) => g.name === table.game);
    document.getElementById("title").textContent = `Play ${desc?.title ?? table.game}`;
    const saved = JSON.parse(localStorage.getItem(seatStore(id)) || "null");
    if (saved) return play(table, saved, desc); // a reload: the same seat, resumed
    if (table.state !== "open") throw new Error(`table ${id} is ${table.state}: seats are taken only while it is open`);
    clear(root).append(joinForm(table, (mine) => play(table, mine, desc)));
    document.body.dataset.ready = "join";
  } catch (err) {
    clear(root).append(h("div", { class: "error" }, String(err.message || err)));
    document.body.dataset.ready = "error";
  }
}

main();
