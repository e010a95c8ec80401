// The feed: what happened, newest first, up to the step on screen. Items are
// {text: [parts], tag, bad?} where a part is a string or {b: "bold"}; the items of the current
// step are highlighted.

import { h, clear } from "./util.js";

const MAX_ITEMS = 80;

function part(p) {
  if (typeof p === "string") return p;
  if (p.b !== undefined) return h("b", {}, p.b);
  if (p.q !== undefined) return h("q", {}, p.q);
  return String(p);
}

/** Render the feed of steps[0..index] into `ul`, newest first. */
export function renderFeed(ul, steps, index) {
  clear(ul);
  let n = 0;
  for (let i = index; i >= 0 && n < MAX_ITEMS; i--) {
    const items = steps[i].feed;
    for (let k = items.length - 1; k >= 0 && n < MAX_ITEMS; k--, n++) {
      const it = items[k];
      ul.append(h("li", { class: [i === index ? "now" : "", it.bad ? "bad" : ""].join(" ").trim() },
        h("span", { class: "tag" }, it.tag ?? ""),
        h("span", { class: "txt" }, (it.text || []).map(part))));
    }
  }
  if (!n) ul.append(h("li", { class: "muted" }, "Nothing has happened yet."));
}
