// The scrubber: play / pause / step / jump to round over a story's steps, with keyboard
// shortcuts. It knows nothing about games: a step has a `label` and a `round` (or null).

import { h, s, clear } from "./util.js";

// Button glyphs as SVG paths on a 16×16 grid (no font on the machines has ⏮ ⏭ ⏸).
const GLYPHS = {
  first: "M3 2h2v12H3zM14 2v12L6 8z",
  back: "M12 2v12L4 8z",
  play: "M4 2v12l10-6z",
  pause: "M3 2h4v12H3zM9 2h4v12H9z",
  fwd: "M4 2v12l8-6z",
  last: "M11 2h2v12h-2zM2 2v12l8-6z",
};

function glyph(name) {
  return s("svg", { viewBox: "0 0 16 16", width: 14, height: 14, "aria-hidden": "true" }, s("path", { d: GLYPHS[name], fill: "currentColor" }));
}

const SPEEDS = [["0.5×", 2400], ["1×", 1200], ["2×", 600], ["4×", 300], ["8×", 150]];

export class Scrubber {
  /**
   * @param {HTMLElement} el the bar element
   * @param {{count: () => number, label: (i: number) => string, roundOf: (i: number) => number|null,
   *          stepOfRound: (r: number) => number|null, onChange: (i: number) => void}} story
   */
  constructor(el, story) {
    this.el = el;
    this.story = story;
    this.index = 0;
    this.timer = null;
    this.speed = 1;
    this.follow = true; // live: stay on the newest step while the user has not moved away
    this.build();
    this.keys = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keys);
  }

  build() {
    const btn = (label, title, fn, cls) =>
      h("button", { type: "button", title, "aria-label": title, class: cls, on: { click: fn } }, label);
    this.range = h("input", { type: "range", min: 0, max: 0, value: 0, "aria-label": "position",
      "data-testid": "range", on: { input: () => this.go(Number(this.range.value), true) } });
    this.where = h("span", { class: "where", "data-testid": "where" });
    this.playBtn = btn(glyph("play"), "play / pause (space)", () => this.toggle(), "primary");
    this.playBtn.dataset.testid = "play";
    this.jump = h("input", { class: "jump", type: "number", min: 1, placeholder: "round #",
      title: "jump to round (g)", "aria-label": "jump to round", "data-testid": "jump",
      on: { change: () => this.jumpTo(Number(this.jump.value)), input: () => this.jump.setCustomValidity("") } });
    this.speedSel = h("select", { title: "speed ([ and ])", "aria-label": "speed",
      on: { change: () => { this.speed = Number(this.speedSel.value); this.restart(); } } },
      SPEEDS.map(([n], i) => h("option", { value: i, selected: i === 1 }, n)));
    clear(this.el).append(
      btn(glyph("first"), "first (Home)", () => this.go(0, true)),
      btn(glyph("back"), "step back (←)", () => this.go(this.index - 1, true)),
      this.playBtn,
      btn(glyph("fwd"), "step forward (→)", () => this.go(this.index + 1, true)),
      btn(glyph("last"), "end (End)", () => this.go(this.last(), true)),
      this.range, this.where, this.jump, this.speedSel,
      h("span", { class: "keys" }, h("kbd", {}, "space"), " play ", h("kbd", {}, "←"),
        h("kbd", {}, "→"), " step ", h("kbd", {}, "g"), " round"),
    );
    this.el.hidden = false;
  }

  /** Stop playing and forget the keyboard (the Theater is showing something else now). */
  destroy() {
    this.pause();
    document.removeEventListener("keydown", this.keys);
  }

  last() {
    return Math.max(0, this.story.count() - 1);
  }

  /** The story grew (live) or was loaded: refresh the range, and follow the tail if asked. */
  refresh() {
    this.range.max = String(this.last());
    if (this.follow && !this.timer) this.index = this.last();
    this.show();
  }

  go(i, byUser = false) {
    const j = Math.max(0, Math.min(this.last(), i));
    if (byUser) this.follow = j === this.last();
    this.index = j;
    this.show();
    if (this.index >= this.last()) this.pause();
  }

  /** Go to a round (counted from 1); a round not in the story is refused naming the range. */
  jumpTo(round) {
    const i = this.story.stepOfRound(round - 1);
    if (i !== null && i !== undefined) {
      this.go(i, true);
      return;
    }
    const rounds = [...Array(this.story.count()).keys()].filter((r) => this.story.stepOfRound(r) !== null);
    this.jump.setCustomValidity(rounds.length
      ? `Jump to round: a round from ${Math.min(...rounds) + 1} to ${Math.max(...rounds) + 1} (got ${this.jump.value}).`
      : "Jump to round: no round has been played yet.");
    this.jump.reportValidity();
  }

  show() {
    this.range.value = String(this.index);
    this.where.textContent = this.story.label(this.index);
    this.story.onChange(this.index);
  }

  play() {
    if (this.index >= this.last()) this.index = 0;
    this.playBtn.replaceChildren(glyph("pause"));
    this.restart(true);
  }

  restart(force = false) {
    if (!this.timer && !force) return;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.go(this.index + 1), SPEEDS[this.speed][1]);
    this.show();
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.playBtn.replaceChildren(glyph("play"));
  }

  toggle() {
    if (this.timer) this.pause(); else this.play();
  }

  onKey(e) {
    if (e.target instanceof HTMLInputElement && e.target !== this.range) return;
    if (e.target instanceof HTMLSelectElement) return;
    const actions = {
      " ": () => this.toggle(), k: () => this.toggle(),
      ArrowRight: () => this.go(this.index + 1, true), l: () => this.go(this.index + 1, true),
      ArrowLeft: () => this.go(this.index - 1, true), j: () => this.go(this.index - 1, true),
      Home: () => this.go(0, true), End: () => this.go(this.last(), true),
      g: () => { this.jump.focus(); this.jump.select(); },
      "[": () => { this.speed = Math.max(0, this.speed - 1); this.speedSel.value = this.speed; this.restart(); },
      "]": () => { this.speed = Math.min(SPEEDS.length - 1, this.speed + 1); this.speedSel.value = this.speed; this.restart(); },
    };
    const fn = actions[e.key];
    if (fn && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      fn();
    }
  }
}
