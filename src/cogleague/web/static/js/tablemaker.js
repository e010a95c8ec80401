// The Lobby's part for people: "play against the baselines now" (one click per game), a form
// that creates a table for any installed game (variant, its options, which seats baselines
// fill), taking a seat as a person, and starting a table this browser created. Everything comes
// from GET /games (each game's descriptor): no game is named here.

import { h, problemText } from "./util.js";
import { post, seatStore } from "./session.js";

const CREATED = "cogleague.created";

/** Tables this browser created (so the Lobby offers to start them). */
export function createdHere() {
  try { return new Set(JSON.parse(localStorage.getItem(CREATED) || "[]")); } catch { return new Set(); }
}

function remember(id) {
  const ids = [...createdHere(), id].slice(-50);
  localStorage.setItem(CREATED, JSON.stringify(ids));
}

/** Join `tableId` as a person (kind human) and keep the seat's token in this browser. */
export async function takeSeat(tableId, seat) {
  const joined = await post(`/tables/${encodeURIComponent(tableId)}/join`, { kind: "human", ...(seat === undefined ? {} : { seat }) });
  localStorage.setItem(seatStore(tableId), JSON.stringify({ seat: joined.seat, token: joined.token }));
  return joined;
}

async function createTable(body) {
  const table = await post("/tables", { people: true, ...body });
  remember(table.id);
  return table;
}

/** Create a table of `game` against its baselines, take seat 0 and go to it (started there). */
export async function playNow(game) {
  const table = await createTable({ game: game.name, fill_with: game.fallback_baseline });
  await takeSeat(table.id, 0);
  location.assign(`/play?table=${encodeURIComponent(table.id)}&start=1`);
}

function deadlineText(g) {
  const s = g.human?.deadline_s;
  return Number.isFinite(s) ? `You get ${s} s to decide each turn.` : "";
}

/** One card per game with its one-click "play against the baselines now". */
export function playNowSection(games, sess, report) {
  const cards = games.map((g) => {
    const go = sess.signed_in
      ? h("button", { type: "button", class: "primary", "data-testid": `play-now-${g.name}` }, `Play ${g.title} against the baselines now`)
      : h("a", { class: "button", href: "/signin?next=/", "data-testid": `signin-to-play-${g.name}` }, `Sign in to play ${g.title}`);
    if (sess.signed_in) {
      go.addEventListener("click", async () => {
        go.disabled = true;
        try { await playNow(g); } catch (err) { go.disabled = false; report(err); }
      });
    }
    return h("div", { class: "panel" }, h("h3", {}, g.title), h("p", { class: "muted" },
      `${g.seat_range[0] === g.seat_range[1] ? g.seat_range[0] : `${g.seat_range[0]}–${g.seat_range[1]}`} seats; the others play the “${g.fallback_baseline}” baseline. ${deadlineText(g)}`),
    h("p", {}, h("a", { href: `/rules?doc=${encodeURIComponent(g.name)}` }, "Read the rules")), go);
  });
  return h("section", { class: "play-now-section", "data-testid": "play-now", "aria-labelledby": "play-now-h" },
    h("h2", { id: "play-now-h" }, "Play now"), h("div", { class: "play-now" }, cards));
}

/** The scalar options of a game's options schema, as form fields (blank: the default). */
function optionFields(schema, prefix) {
  const out = [];
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    const alt = (prop.anyOf ?? [prop]).find((p) => p.type && p.type !== "null") ?? prop;
    const id = `${prefix}-${key}`;
    const label = h("label", { for: id }, prop.description ? `${key.replaceAll("_", " ")}: ${prop.description}` : key.replaceAll("_", " "));
    let input = null, read = null;
    if (alt.type === "integer" || alt.type === "number") {
      input = h("input", { id, type: "number", step: alt.type === "integer" ? 1 : "any", min: alt.minimum, max: alt.maximum,
        placeholder: "default", "data-option": key });
      read = () => (input.value === "" ? undefined : Number(input.value));
    } else if (alt.type === "boolean" || Array.isArray(alt.enum ?? prop.enum)) { // an optional enum keeps its words beside anyOf
      const words = alt.enum ?? prop.enum;
      const choices = alt.type === "boolean" ? [["", "default"], ["true", "yes"], ["false", "no"]] : [["", "default"], ...words.map((v) => [v, v])];
      input = h("select", { id, "data-option": key }, choices.map(([v, t]) => h("option", { value: v }, t)));
      read = () => (input.value === "" ? undefined : alt.type === "boolean" ? input.value === "true" : input.value);
    }
    if (input) out.push({ node: h("div", { class: "field" }, label, input), key, read, input, alt });
  }
  return out;
}

/** What is wrong with an option's field, naming it and its allowed range; null when it is fine.
 * The form checks this itself (novalidate): the browser's own bubble names neither, and cannot
 * point at a field inside the folded options. */
function problemOf(f) {
  if (f.input.validity.valid) return null;
  const kind = f.alt.type === "integer" ? "a whole number" : "a number";
  const range = f.alt.minimum !== undefined && f.alt.maximum !== undefined ? ` from ${f.alt.minimum} to ${f.alt.maximum}`
    : f.alt.minimum !== undefined ? ` of at least ${f.alt.minimum}` : f.alt.maximum !== undefined ? ` of at most ${f.alt.maximum}` : "";
  const got = f.input.value === "" ? "" : ` (got ${f.input.value})`;
  return `${f.key.replaceAll("_", " ")} must be ${kind}${range}, or blank for the default${got}.`;
}

/** "Create a table": game, variant, who fills the empty seats, the game's options. */
export function makerSection(games, sess, report) {
  if (!sess.signed_in) return null;
  const game = h("select", { id: "mk-game", "data-testid": "mk-game" }, games.map((g) => h("option", { value: g.name }, g.title)));
  const variant = h("select", { id: "mk-variant", "data-testid": "mk-variant" });
  const fill = h("select", { id: "mk-fill", "data-testid": "mk-fill" });
  const sit = h("input", { id: "mk-sit", type: "checkbox", checked: true, "data-testid": "mk-sit" });
  const opts = h("div", { class: "options-grid" });
  const status = h("p", { role: "status", class: "muted" });
  const create = h("button", { type: "submit", class: "primary", "data-testid": "mk-create" }, "Create the table");
  let fields = [];
  const pick = () => {
    const g = games.find((x) => x.name === game.value);
    variant.replaceChildren(...(g.variants.length ? g.variants : [""]).map((v) => h("option", { value: v, selected: v === g.default_variant }, v || "standard")));
    fill.replaceChildren(...g.baselines.map((b) => h("option", { value: b, selected: b === g.fallback_baseline }, `the ${b} baseline`)),
      h("option", { value: "" }, "nobody: wait for people to join"));
    fields = optionFields(g.options, `mk-${g.name}`);
    opts.replaceChildren(...fields.map((f) => f.node));
  };
  game.addEventListener("change", pick);
  pick();
  const field = (id, label, input) => h("div", { class: "field" }, h("label", { for: id }, label), input);
  const options = h("details", {}, h("summary", {}, "Options (blank: the variant's default)"), opts);
  const form = h("form", { class: "maker", "data-testid": "maker", novalidate: true },
    field("mk-game", "Game", game), field("mk-variant", "Variant", variant), field("mk-fill", "Empty seats at the start", fill),
    h("label", { class: "radio" }, sit, " Take a seat myself"),
    options,
    create, status);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (create.disabled) return; // a double click sends the form once: one table, not two
    const bad = fields.find(problemOf);
    if (bad) {
      options.open = true;
      bad.input.focus();
      status.textContent = problemOf(bad);
      status.className = "error";
      return;
    }
    status.textContent = "";
    status.className = "muted";
    const config = Object.fromEntries(fields.map((f) => [f.key, f.read()]).filter(([, v]) => v !== undefined));
    create.disabled = true;
    try {
      const table = await createTable({ game: game.value, ...(variant.value ? { variant: variant.value } : {}),
        ...(fill.value ? { fill_with: fill.value } : {}), config });
      if (sit.checked) {
        await takeSeat(table.id);
        location.assign(`/play?table=${encodeURIComponent(table.id)}${fill.value ? "&start=1" : ""}`);
      } else {
        status.textContent = `Table ${table.id} is open: start it from its card once people have joined.`;
        create.disabled = false;
      }
    } catch (err) { create.disabled = false; report(err); status.textContent = problemText(err); status.className = "error"; }
  });
  return h("section", { class: "maker-section", "data-testid": "maker-section", "aria-labelledby": "maker-h" },
    h("details", { class: "panel" }, h("summary", { id: "maker-h" }, "Create a table"), form));
}

/** A card's buttons: back to the seat this browser keeps (a person who left mid-game); signed
 * in, take a free seat, start a table made here, or take back a person's seat at a running
 * table from another device. */
export function cardActions(t, sess, report) {
  const play = `/play?table=${encodeURIComponent(t.id)}`;
  const out = [];
  if (localStorage.getItem(seatStore(t.id)) && (t.state === "open" || t.state === "running")) {
    out.push(h("a", { class: "button", href: play, "data-testid": "back-to-seat", "data-focus-key": "back" }, "Back to my seat →"));
  } else if (sess.signed_in && t.state === "running" && t.seats.some((x) => x.person) && (!sess.mine || sess.mine.has(t.id))) {
    out.push(h("a", { href: play, "data-testid": "seat-elsewhere", "data-focus-key": "elsewhere" },
      "Your seat, played on another device? Take it back →"));
  }
  if (!sess.signed_in || t.state !== "open") return out.length ? h("p", { class: "actions" }, out) : null;
  if (t.seats.some((x) => !x.taken) && !localStorage.getItem(seatStore(t.id))) {
    const take = h("button", { type: "button", class: "primary", "data-testid": "take-seat", "data-focus-key": "take" }, "Take a seat and play");
    take.addEventListener("click", async () => {
      take.disabled = true; // a double click joins once
      try { await takeSeat(t.id); location.assign(play); } catch (err) {
        take.disabled = false;
        // this account's seat, its token on another device: the Play page takes it back
        report(err?.code === "already_seated" ? Object.assign(new Error("You already hold a seat at this table, taken on another device or browser."),
          { code: err.code, link: { href: play, text: "Take it back on this device →" } }) : err);
      }
    });
    out.push(take);
  }
  if (createdHere().has(t.id)) {
    const start = h("button", { type: "button", "data-testid": "start-table", "data-focus-key": "start" }, "Start the table");
    start.addEventListener("click", async () => {
      start.disabled = true;
      try { await post(`/tables/${encodeURIComponent(t.id)}/start`); } catch (err) { start.disabled = false; report(err); }
    });
    out.push(start);
  }
  return out.length ? h("p", { class: "actions" }, out) : null;
}
