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

/** The top three: [{who, policy, value}] best first. */
export function podium(entries) {
  return h("div", { class: "podium" }, entries.slice(0, 3).map((e, k) => h("div", {},
    h("div", { class: "medal" }, ["1st", "2nd", "3rd"][k]), h("div", { class: "who" }, e.who),
    h("div", { class: "policy" }, e.policy), h("div", { class: "val" }, e.value))));
}
