// Who this browser is signed in as (GET /session), and posts that speak for that person: the
// session cookie is HttpOnly, so the page sends the session's CSRF token (from GET /session)
// in X-CSRF-Token with every request that changes something.

import { h, fetchJSON } from "./util.js";

let current = null;

/** Where this browser keeps a seat's token (per table) and an API key typed on the Play page. */
export const seatStore = (id) => `cogleague.seat.${id}`;
export const KEY_STORE = "cogleague.key";
/** Where the Play page keeps a turn's half-typed move in this tab (sessionStorage), per table. */
export const draftStore = (id) => `cogleague.draft.${id}`;

/** The session document ({signed_in, name, csrf, web_signup}); read once per page. */
export async function session(fresh = false) {
  if (!current || fresh) current = await fetchJSON("/session").catch(() => ({ signed_in: false, web_signup: false }));
  return current;
}

/** POST (or `method`) JSON as the signed-in person (or anonymously: sign-in, sign-up). A 401
 * means the session ended elsewhere (expired, signed out in another tab): the error says so in
 * a person's words (`signIn` set, for a link) instead of the API's "send Authorization: Bearer",
 * and the header's account link turns back into "Sign in". */
export async function post(url, body, method = "POST") {
  const s = await session();
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  if (s.csrf) headers["X-CSRF-Token"] = s.csrf;
  try {
    return await fetchJSON(url, { method, headers, body: method === "DELETE" ? undefined : JSON.stringify(body ?? {}) });
  } catch (err) {
    if (err?.status !== 401 || !(s.signed_in || s.ended)) throw err;
    current = { signed_in: false, web_signup: s.web_signup, ended: true };
    document.querySelector("header.top nav [data-nav=me]")?.remove();
    badge();
    throw Object.assign(new Error("You are no longer signed in (the session ended): sign in again to go on."), { status: 401, signIn: true });
  }
}

/** Sign out: the seats this browser keeps for the person (their tokens, for a reload) and an
 * API key typed on the Play page are forgotten first, so the next person here cannot play
 * them; then the server ends the session. */
export async function signOut() {
  for (const k of Object.keys(localStorage)) {
    if (k.startsWith(seatStore("")) || k === KEY_STORE) localStorage.removeItem(k);
  }
  for (const k of Object.keys(sessionStorage)) { // a turn's half-typed move (play.js) goes too
    if (k.startsWith(draftStore(""))) sessionStorage.removeItem(k);
  }
  current = null;
  await post("/session", undefined, "DELETE");
}

/** The header's account link: "Sign in", or the person's name (their account page). */
export async function badge() {
  const nav = document.querySelector("header.top nav");
  if (!nav || nav.querySelector("[data-nav=me]")) return;
  const s = await session();
  const link = s.signed_in
    ? h("a", { href: "/me", "data-nav": "me", "data-testid": "me-link" }, `${s.name} · account`)
    : h("a", { href: "/signin", "data-nav": "signin", "data-testid": "signin-link" }, "Sign in");
  if (document.body.dataset.page === link.dataset.nav) link.classList.add("on");
  nav.append(link);
}
