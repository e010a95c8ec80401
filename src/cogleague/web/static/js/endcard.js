// The end card every game shows on its last step: an overlay on the stage with a podium and
// the final table. Closing it (× or Esc) keeps it closed until the scrubber leaves the end.

import { h } from "./util.js";

/** Returns show(final, build): build() gives the card's children when it must be drawn. */
export function endCardSlot(stage) {
  let dismissed = false;
  let overlay = null;
  const close = () => {
    dismissed = true;
    overlay?.remove();
    overlay = null;
    stage.classList.remove("final");
  };
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && overlay) close(); });
  return (final, build) => {
    overlay?.remove();
    overlay = null;
    if (!final) {
      dismissed = false;
      stage.classList.remove("final");
      return;
    }
    if (dismissed) return;
    stage.classList.add("final");
    overlay = h("div", { class: "endcard" }, h("div", { class: "card", "data-testid": "endcard" },
      h("button", { class: "close", title: "close (Esc)", "aria-label": "close", on: { click: close } }, "×"),
      build()));
    stage.append(overlay);
  };
}

const ORDINAL = (k) => `${k}${k % 10 === 1 && k % 100 !== 11 ? "st" : k % 10 === 2 && k % 100 !== 12 ? "nd" : k % 10 === 3 && k % 100 !== 13 ? "rd" : "th"}`;
const PODIUM_MAX = 8;

/** The podium: [{who, policy, value, rank?}] best first. Tied entries share a rank (competition
 *  ranking: 1, 1, 3), so a seven-way tie is seven firsts, never 1st / 2nd / 3rd. Without `rank`
 *  entries with equal `value` tie. Shows every entry ranked 3rd or better (at most eight). */
export function podium(entries) {
  const ranked = entries.map((e) => ({ ...e,
    rank: e.rank ?? 1 + entries.filter((o) => Number(o.value) > Number(e.value)).length }));
  const top = ranked.filter((e) => e.rank <= 3);
  const shown = top.slice(0, PODIUM_MAX);
  return h("div", { class: "podium", "data-testid": "podium" }, shown.map((e) => h("div", { "data-rank": e.rank },
    h("div", { class: "medal" }, ORDINAL(e.rank), ranked.filter((o) => o.rank === e.rank).length > 1 ? " (tied)" : ""),
    h("div", { class: "who" }, e.who), h("div", { class: "policy" }, e.policy), h("div", { class: "val" }, e.value))),
  top.length > shown.length ? h("div", { class: "more" }, `+${top.length - shown.length} more`) : null);
}
