// The signed-in person's account page (/me): their name, a new API key for bots on demand
// (keys are stored as hashes, so an old one cannot be shown again), how to run each game's
// example bot with it, and signing out.

import { h, clear, fetchJSON, markNav, problemText } from "./util.js";
import { session, post, badge, signOut } from "./session.js";

const root = document.getElementById("me");

async function main() {
  markNav();
  const s = await session();
  if (!s.signed_in) {
    clear(root).append(h("p", {}, "You are not signed in. ", h("a", { href: "/signin?next=/me" }, "Sign in"), " or ",
      h("a", { href: "/signup?next=/me" }, "sign up"), "."));
    document.body.dataset.ready = "me";
    return badge();
  }
  const games = (await fetchJSON("/games")).games;
  const keyOut = h("p", { role: "status", "data-testid": "key-out" }); // heard when the key (or a refusal) appears
  const make = h("button", { type: "button", class: "primary", "data-testid": "new-key" }, "Make a new API key");
  make.addEventListener("click", async () => {
    try {
      const { api_key: key } = await post("/session/api-key");
      clear(keyOut).append("Your new key (the previous one no longer works): ", h("code", { class: "key", "data-testid": "api-key" }, key));
    } catch (err) {
      keyOut.textContent = problemText(err);
    }
  });
  const out = h("button", { type: "button", "data-testid": "signout" }, "Sign out");
  out.addEventListener("click", async () => { await signOut(); location.assign("/"); });
  const bots = games.filter((g) => g.example_bot).map((g) => h("li", {}, h("b", {}, g.title), ": ",
    h("code", {}, `cogleague bot run ${g.example_bot} --server ${location.origin} --key $COGLEAGUE_KEY --table ID`)));
  clear(root).append(
    h("section", { class: "panel" }, h("h2", {}, `Signed in as ${s.name}`), h("p", {}, out)),
    h("section", { class: "panel" }, h("h2", {}, "API key for your bots"),
      h("p", { class: "muted" }, "A program plays under your name with this key (Authorization: Bearer KEY)."), make, keyOut,
      bots.length ? h("p", {}, "Run a game's example bot at a table (ID from the Lobby):") : null, h("ul", { class: "bots" }, bots)));
  document.body.dataset.ready = "me";
  badge();
}

main();
