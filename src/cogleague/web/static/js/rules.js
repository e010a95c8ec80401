// Rules: each game's rules page and the table protocol, rendered from Markdown on the server
// (GET /api/docs, GET /api/docs/NAME; raw HTML in the sources is escaped there).

import { h, clear, fetchJSON, markNav } from "./util.js";

const tabs = document.getElementById("tabs");
const doc = document.getElementById("doc");

async function show(name) {
  for (const b of tabs.children) { // the chosen tab is told by more than its colour
    b.classList.toggle("on", b.dataset.name === name);
    b.setAttribute("aria-pressed", String(b.dataset.name === name));
  }
  try {
    const page = await fetchJSON(`/api/docs/${encodeURIComponent(name)}`);
    doc.innerHTML = page.html; // rendered by markdown-it with raw HTML disabled
    doc.dataset.doc = name;
    history.replaceState(null, "", `?doc=${name}`);
  } catch (err) {
    clear(doc).append(h("div", { class: "error" }, err.message));
  }
}

async function main() {
  markNav();
  const { docs } = await fetchJSON("/api/docs");
  clear(tabs).append(...docs.map((d) => h("button", { type: "button", "data-name": d.name, on: { click: () => show(d.name) } }, d.title)));
  const wanted = new URLSearchParams(location.search).get("doc");
  if (docs.length) await show(docs.some((d) => d.name === wanted) ? wanted : docs[0].name);
  else clear(doc).append(h("p", { class: "muted" }, "No rules page is installed."));
  document.body.dataset.ready = "rules";
}

main();
