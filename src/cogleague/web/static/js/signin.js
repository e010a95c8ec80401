// Sign in (/signin) and sign up (/signup): a name and a password; the server answers with a
// session cookie. After signing up, the page shows the account's API key once, for bots.

import { h, clear, markNav, problemText } from "./util.js";
import { session, post, badge } from "./session.js";

const root = document.getElementById("auth");
const mode = document.body.dataset.page; // "signin" | "signup"

function field(id, label, attrs) {
  const input = h("input", { id, name: id, required: true, ...attrs });
  return [h("div", { class: "field" }, h("label", { for: id }, label), input), input];
}

/** Where to go after signing in: `?next=` if it is a page of this site, else the Lobby. The
 * browser's own URL parser decides (it reads `/\host` or `/<tab>/host` as `//host`). */
function next() {
  const url = new URL(new URLSearchParams(location.search).get("next") ?? "/", location.origin);
  return url.origin === location.origin ? url.pathname + url.search + url.hash : "/";
}

/** A wait in words: "40 seconds", "15 minutes". */
function waitWords(s) {
  return s < 90 ? `${s} seconds` : `${Math.ceil(s / 60)} minutes`;
}

/** What the server refused, in a person's words (the API says "name 'x' is taken", "5 failed
 * sign-ins for 'x' within 900 s; try again in 897 s"). */
function refusal(err, name) {
  if (err?.status === 409) return `The name “${name}” is taken: choose another.`;
  if (err?.status === 401 && mode === "signin") return "Unknown name or wrong password.";
  if (err?.status === 429) {
    const wait = err.retryAfter ? ` Try again in ${waitWords(err.retryAfter)}.` : "";
    return mode === "signin" ? `Too many failed sign-ins: signing in is locked for now.${wait}`
      : `Too many accounts were made from this address in the last hour.${wait}`;
  }
  return problemText(err);
}

async function main() {
  markNav();
  const s = await session();
  if (mode === "signup" && !s.web_signup) {
    clear(root).append(h("p", { class: "error", "data-testid": "signup-off" },
      "Self sign-up is turned off on this server: ask its operator for an account, then ",
      h("a", { href: "/signin" }, "sign in"), "."));
    document.body.dataset.ready = mode;
    return badge();
  }
  const [nameBox, name] = field("name", "Name (letters, digits, . _ -)", { type: "text", autocomplete: "username",
    maxlength: 64, pattern: "[A-Za-z0-9_.\\-]+", "data-testid": "name" });
  const [passBox, pass] = field("password", "Password (at least 8 characters)", { type: "password", minlength: 8, maxlength: 200,
    autocomplete: mode === "signup" ? "new-password" : "current-password", "data-testid": "password" });
  const status = h("p", { role: "status", class: "muted", "data-testid": "auth-status" });
  const submit = h("button", { type: "submit", class: "primary", "data-testid": "submit" }, mode === "signup" ? "Sign up" : "Sign in");
  const other = mode === "signup"
    ? h("p", {}, "Have an account? ", h("a", { href: `/signin${location.search}` }, "Sign in"), ".")
    : s.web_signup ? h("p", {}, "New here? ", h("a", { href: `/signup${location.search}`, "data-testid": "to-signup" }, "Sign up"), ".") : null;
  const form = h("form", { class: "panel auth", "data-testid": "auth-form", novalidate: true }, nameBox, passBox, submit, status, other);
  // The form checks its fields itself: the browser's bubble ("Please match the requested
  // format") names neither the field nor what it allows.
  const problems = [[name, `Name: 1 to ${name.maxLength} letters, digits, . _ or -`],
    [pass, `Password: ${pass.minLength} to ${pass.maxLength} characters`]];
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const bad = problems.find(([input]) => !input.validity.valid);
    if (bad) {
      status.textContent = bad[0] === name && name.value ? `${bad[1]} (got “${name.value}”).` : `${bad[1]}.`;
      status.className = "error";
      bad[0].focus();
      return;
    }
    submit.disabled = true;
    try {
      const done = await post(mode === "signup" ? "/people" : "/session", { name: name.value, password: pass.value });
      await session(true);
      if (mode === "signup") {
        clear(root).append(h("div", { class: "panel", "data-testid": "signed-up" },
          h("h2", { tabindex: "-1", "data-testid": "welcome" }, `Welcome, ${done.name}`),
          h("p", {}, "Your API key, for bots you run against this server (shown once; you can make a new one on your ",
            h("a", { href: "/me" }, "account page"), "):"),
          h("p", {}, h("code", { class: "key", "data-testid": "api-key" }, done.api_key)),
          h("p", {}, h("a", { class: "button primary", href: next(), "data-testid": "continue" }, "Go and play →"))));
        // the form that had the focus is gone: the focus goes to what replaced it, not the top
        root.querySelector("[data-testid=welcome]").focus();
      } else {
        location.assign(next());
      }
    } catch (err) {
      status.textContent = refusal(err, name.value);
      status.className = "error";
      submit.disabled = false;
      // the disabled button dropped the focus: back to the field to change
      const fix = err?.status === 409 ? name : pass;
      fix.focus();
      fix.select();
    }
  });
  clear(root).append(form);
  name.focus();
  document.body.dataset.ready = mode;
  badge();
}

main();
