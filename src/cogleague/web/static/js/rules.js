// Rules: each game's rules page and the table protocol, rendered from Markdown on the server
// (GET /api/docs, GET /api/docs/NAME; raw HTML in the sources is escaped there).

import { h, clear, fetchJSON, markNav, problemText } from "./util.js";

const tabs = document.getElementById("tabs");
const doc = document.getElementById("doc");

async function show(name, missing = null) {
  for (const b of tabs.children) { // the chosen tab is told by more than its colour
    b.classList.toggle("on", b.dataset.name === name);
    b.setAttribute("aria-pressed", String(b.dataset.name === name));
  }
  try {
    const page = await fetchJSON(`/api/docs/${encodeURIComponent(name)}`);
    doc.innerHTML = page.html; // rendered by markdown-it with raw HTML disabled
    doc.dataset.doc = name;
    if (missing === null) history.replaceState(null, "", `?doc=${encodeURIComponent(name)}`);
    else { // a name this server does not have: say so (and keep it in the address)
      doc.prepend(h("p", { class: "error", role: "status", "data-testid": "not-found" },
        `There is no rules page named “${missing}”; here is ${page.title ?? name} instead.`));
    }
  } catch (err) {
    clear(doc).append(h("div", { class: "error" }, problemText(err)));
  }
}

async function main() {
  markNav();
  const { docs } = await fetchJSON("/api/docs");
  clear(tabs).append(...docs.map((d) => h("button", { type: "button", "data-name": d.name, on: { click: () => show(d.name) } }, d.title)));
  const wanted = new URLSearchParams(location.search).get("doc");
  const known = docs.some((d) => d.name === wanted);
  if (docs.length) await show(known ? wanted : docs[0].name, wanted !== null && !known ? wanted : null);
  else clear(doc).append(h("p", { class: "muted" }, "No rules page is installed."));
  document.body.dataset.ready = "rules";
}

main();
