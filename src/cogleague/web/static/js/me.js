// The signed-in person's account page (/me): their name, their tables (GET /session/tables), a new API key for bots on demand
// (keys are stored as hashes, so an old one cannot be shown again), how to run each game's
// example bot with it, and signing out.

import { h, clear, fetchJSON, markNav, problemText } from "./util.js";
import { session, post, badge, signOut } from "./session.js";

const root = document.getElementById("me");

const STATE_WORDS = { open: "waiting for its start", running: "being played", finished: "finished", aborted: "called off" };

/** The tables where this person holds a seat, newest first: back to a seat still in play, the
 * replay of one played out. */
function myTables(mine, games) {
  const section = h("section", { class: "panel", "aria-labelledby": "mine-h", "data-testid": "my-tables" }, h("h2", { id: "mine-h" }, "Your tables"));
  if (mine === null) {
    section.append(h("p", { class: "muted" }, "Your tables could not be read just now; reload the page to try again."));
    return section;
  }
  if (!mine.length) {
    section.append(h("p", { class: "muted" }, "None yet: play one from the ", h("a", { href: "/" }, "Lobby"), "."));
    return section;
  }
  const items = mine.map((t) => {
    const title = games.find((g) => g.name === t.game)?.title ?? t.game;
    const when = new Date(1000 * (t.finished_at ?? t.created_at)).toLocaleString();
    const id = encodeURIComponent(t.id);
    const link = t.state === "open" || t.state === "running" ? h("a", { href: `/play?table=${id}` }, "Back to my seat →")
      : t.state === "finished" ? h("a", { href: `/theater?table=${id}` }, "Watch the replay →") : null;
    return h("li", {}, `${title}${t.variant ? ` · ${t.variant}` : ""}, seat ${t.seat + 1}: ${STATE_WORDS[t.state] ?? t.state} (${when}) `, link);
  });
  section.append(h("ul", {}, items));
  return section;
}

async function main() {
  markNav();
  const s = await session();
  if (!s.signed_in) {
    clear(root).append(h("p", {}, "You are not signed in. ", h("a", { href: "/signin?next=/me" }, "Sign in"), " or ",
      h("a", { href: "/signup?next=/me" }, "sign up"), "."));
    document.body.dataset.ready = "me";
    return badge();
  }
  const [games, mine] = await Promise.all([fetchJSON("/games").then((d) => d.games),
    fetchJSON("/session/tables").then((d) => d.tables, () => null)]);
  const keyOut = h("p", { role: "status", "data-testid": "key-out" }); // heard when the key (or a refusal) appears
  const make = h("button", { type: "button", class: "primary", "data-testid": "new-key" }, "Make a new API key");
  const renew = async () => {
    try {
      const { api_key: key } = await post("/session/api-key");
      clear(keyOut).append("Your new key (the previous one no longer works): ", h("code", { class: "key", "data-testid": "api-key" }, key));
    } catch (err) {
      keyOut.textContent = problemText(err);
    }
    make.focus();
  };
  // a key cannot be shown again, so a person looking for theirs may press this: say first
  // that it retires the key their bots play with
  make.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "primary", "data-testid": "confirm-new-key", on: { click: renew } }, "Yes, make a new key");
    const no = h("button", { type: "button", "data-testid": "keep-key", on: { click: () => { clear(keyOut); make.focus(); } } }, "Keep my key");
    clear(keyOut).append(h("p", {}, "A new key replaces the one you have: the old key stops working at once, and bots playing with it are disconnected."),
      h("p", { class: "actions" }, yes, " ", no));
    yes.focus();
  });
  const out = h("button", { type: "button", "data-testid": "signout" }, "Sign out");
  out.addEventListener("click", async () => { await signOut(); location.assign("/"); });
  const bots = games.filter((g) => g.example_bot).map((g) => h("li", {}, h("b", {}, g.title), ": ",
    h("code", {}, `cogleague bot run ${g.example_bot} --server ${location.origin} --key $COGLEAGUE_KEY --table ID`)));
  clear(root).append(
    h("section", { class: "panel" }, h("h2", {}, `Signed in as ${s.name}`), h("p", {}, out)),
    myTables(mine, games),
    h("section", { class: "panel" }, h("h2", {}, "API key for your bots"),
      h("p", { class: "muted" }, "A program plays under your name with this key (Authorization: Bearer KEY)."), make, keyOut,
      bots.length ? h("p", {}, "Run a game's example bot at a table (ID from the Lobby):") : null, h("ul", { class: "bots" }, bots)));
  document.body.dataset.ready = "me";
  badge();
}

main();
