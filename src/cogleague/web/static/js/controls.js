// A seat's controls, built from its turn's legal actions, for the Play page. A game's viewer
// module may export `playControls(legal, view, rules)` (rules: the game descriptor's
// `rule_numbers`) to shape them itself; otherwise they follow the
// legal actions' own shape, which every game uses one of:
//   [{action: "a", max_message_chars: 280}, …]   one choice among alternatives (+ its text fields)
//   {key: [lo, hi]} or {key: {min, max}}          an integer in a range
//   {key: ["x", "y"]}                             one of some words
//   {key: N} where N is a text limit              free text of at most N characters
// A control is {name, kind: "int" | "choice" | "text", min, max, choices, maxLength, label},
// plus what a viewer may add: `options` [{value, label}] for a choice whose values are not
// words (a patch number; null = send nothing), `checked` (the value chosen at first), `value`
// (a text's first content — then it is sent only when changed, "" included, so a field whose
// absence means "keep", like a note, can also be cleared) and `hint` (a line under the label).

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

/** The form's fields; `read()` gives the action the seat sends (empty texts and "nothing"
 *  choices left out; a text with a first `value` only when it was changed). */
export function buildForm(controls) {
  const read = [];
  const fields = controls.map((c) => {
    const id = `ctl-${++serial}`;
    const hintId = c.hint ? `${id}-hint` : null;
    const hint = c.hint ? h("span", { id: hintId, class: "hint" }, c.hint) : null;
    const described = hintId ? { "aria-describedby": hintId } : {};
    if (c.kind === "int") {
      const input = h("input", { id, type: "number", min: c.min, max: c.max, step: 1, value: c.min, required: true,
        "data-control": c.name, inputmode: "numeric", ...described });
      read.push(() => [c.name, Number(input.value)]);
      return h("div", { class: "field" }, h("label", { for: id }, `${c.label} (${c.min}–${c.max})`), hint, input);
    }
    if (c.kind === "choice") {
      const name = `choice-${serial}`;
      const options = c.options ?? c.choices.map((x) => ({ value: x, label: x }));
      const first = Math.max(0, options.findIndex((o) => o.value === c.checked));
      const radios = options.map((o, k) => h("label", { class: "radio" },
        h("input", { type: "radio", name, value: o.value === null ? "" : String(o.value), checked: k === first,
          "data-control": c.name }), ` ${o.label}`));
      read.push(() => {
        const k = radios.map((r) => r.querySelector("input")).findIndex((r) => r.checked);
        return [c.name, k < 0 ? undefined : options[k].value];
      });
      return h("fieldset", { class: "field", ...described }, h("legend", {}, c.label), hint, h("div", { class: "radios" }, radios));
    }
    const initial = typeof c.value === "string" ? c.value : null;
    const input = h("input", { id, type: "text", maxlength: c.maxLength, "data-control": c.name, autocomplete: "off",
      value: initial ?? "", ...described });
    read.push(() => [c.name, initial === null ? (input.value || undefined) : (input.value === initial ? undefined : input.value)]);
    return h("div", { class: "field" }, h("label", { for: id }, c.label), hint, input);
  });
  return { fields, read: () => Object.fromEntries(read.map((f) => f()).filter(([, v]) => v !== undefined && v !== null)) };
}
