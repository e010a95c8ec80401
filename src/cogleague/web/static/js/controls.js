// A seat's controls, built from its turn's legal actions, for the Play page. A game's viewer
// module may export `playControls(legal, view)` to shape them itself; otherwise they follow the
// legal actions' own shape, which every game uses one of:
//   [{action: "a", max_message_chars: 280}, …]   one choice among alternatives (+ its text fields)
//   {key: [lo, hi]} or {key: {min, max}}          an integer in a range
//   {key: ["x", "y"]}                             one of some words
//   {key: N} where N is a text limit              free text of at most N characters
// A control is {name, kind: "int" | "choice" | "text", min, max, choices, maxLength, label}.

import { h } from "./util.js";

export function controlsOf(legal) {
  if (Array.isArray(legal) && legal.every((x) => x && typeof x === "object")) {
    const keys = Object.keys(legal[0] ?? {}).filter((k) => typeof legal[0][k] === "string");
    const out = keys.map((k) => ({ name: k, kind: "choice", choices: legal.map((x) => x[k]), label: k }));
    for (const [k, v] of Object.entries(legal[0] ?? {})) {
      const m = /^max_(.+)_chars$/.exec(k);
      if (m && typeof v === "number") out.push({ name: m[1], kind: "text", maxLength: v, label: `${m[1]} (optional)` });
    }
    return out;
  }
  const out = [];
  for (const [k, v] of Object.entries(legal || {})) {
    if (Array.isArray(v) && v.length === 2 && v.every(Number.isInteger)) out.push({ name: k, kind: "int", min: v[0], max: v[1], label: k });
    else if (v && typeof v === "object" && Number.isInteger(v.min) && Number.isInteger(v.max)) out.push({ name: k, kind: "int", min: v.min, max: v.max, label: k });
    else if (Array.isArray(v) && v.every((x) => typeof x === "string")) out.push({ name: k, kind: "choice", choices: v, label: k });
    else if (Number.isInteger(v)) out.push({ name: k, kind: "text", maxLength: v, label: `${k} (optional, ≤ ${v} characters)` });
  }
  return out;
}

let serial = 0;

/** The form's fields; `read()` gives the action the seat sends (empty texts left out). */
export function buildForm(controls) {
  const read = [];
  const fields = controls.map((c) => {
    const id = `ctl-${++serial}`;
    if (c.kind === "int") {
      const input = h("input", { id, type: "number", min: c.min, max: c.max, step: 1, value: c.min, required: true,
        "data-control": c.name, inputmode: "numeric" });
      read.push(() => [c.name, Number(input.value)]);
      return h("div", { class: "field" }, h("label", { for: id }, `${c.label} (${c.min}–${c.max})`), input);
    }
    if (c.kind === "choice") {
      const name = `choice-${serial}`;
      const radios = c.choices.map((x, k) => h("label", { class: "radio" },
        h("input", { type: "radio", name, value: x, checked: k === 0, "data-control": c.name }), ` ${x}`));
      read.push(() => [c.name, radios.map((r) => r.querySelector("input")).find((r) => r.checked)?.value]);
      return h("fieldset", { class: "field" }, h("legend", {}, c.label), radios);
    }
    const input = h("input", { id, type: "text", maxlength: c.maxLength, "data-control": c.name, autocomplete: "off" });
    read.push(() => [c.name, input.value]);
    return h("div", { class: "field" }, h("label", { for: id }, c.label), input);
  });
  return { fields, read: () => Object.fromEntries(read.map((f) => f()).filter(([, v]) => v !== "" && v !== undefined)) };
}
