// Commons Family in the Theater: the six cogs with this round's gains and sanctions (arrows),
// the resource drawn per module — orchard and river shaded by pollution (cleanup), six patches
// with stocks and tombstones (harvest), the field's colour shares and ripe berries
// (allelopathic), three mushroom rows (mushrooms) — the public ledger per alias, chat lines,
// scores, and a chart of the resource and of maintenance effort over the rounds.
// Replay format `commons-family/1` (spec commons.md §13); live tables send the same events.

import { h, s, svgRoot, clear, fmt, order, ranks, seatColour, round, clip } from "../util.js";
import { renderFeed } from "../feed.js";
import { lineChart } from "../chart.js";
import { tombstone, apple, mushroom } from "../icons.js";
import { endCardSlot, podium } from "../endcard.js";
import { controlsOf } from "../controls.js";

export const id = "commons";
export const title = "Commons Family";

// The rules' scales (capacities, thresholds) come from the server: the game descriptor's
// `rule_numbers`, which the Theater puts in `meta.rules`. Only display choices live here.
const LEDGER_RECENT = 5, SCORE_DP = 3;
const COLOURS = ["red", "green", "blue"];
const HUE = { red: "#e5534b", green: "#4cbf6b", blue: "#4c8df0" };
const MODULE_TITLE = { cleanup: "Cleanup — the orchard and the river", harvest: "Harvest — six patches",
  allelopathic: "Allelopathic — the berry field", mushrooms: "Mushrooms — three rows" };

export function metaFromReplay(doc) {
  return { module: doc.module, variant: doc.variant, seed: doc.seed, rounds: doc.config?.rounds,
    aliases: doc.names, names: doc.policyNames, seats: doc.seats, config: doc.config,
    norm: doc.config?.norm_text ?? "", results: doc.results ?? null };
}

export function metaFromTable(t) {
  const seats = t.seats || [];
  const cfg = t.config || {};
  return { module: cfg.module, variant: t.variant, seed: cfg.seed, rounds: cfg.rounds,
    aliases: seats.map((x, i) => x?.alias ?? `Seat ${i}`), names: seats.map((x) => x?.policy ?? x?.policy_name ?? ""),
    seats: null, config: cfg, norm: cfg.norm_text ?? "", results: null };
}

/** The replay's events, each `round_end` carrying that round's state after dynamics (live
 *  tables learn it from the next `round_open`). */
export function eventsOfReplay(doc) {
  const after = new Map((doc.rounds || []).map((r) => [r.r, r.state_after]));
  return doc.events.map((e) => (e.kind === "round_end" && after.has(e.r) ? { ...e, state_after: after.get(e.r) } : e));
}

export function initialState(meta) {
  const n = meta.aliases.length;
  const zeros = () => Array(n).fill(0);
  return { n, module: meta.module, r: null, resource: null, scores: zeros(), gains: zeros(), extracted: zeros(),
    effort: zeros(), given: zeros(), received: zeros(), recent: Array.from({ length: n }, () => []),
    decisions: [], messages: [], sanctions: [], frozen: zeros(), roundEffort: null, series: { resource: [], maintenance: [] },
    // live: the public ledger's upkeep total at the last look and the rounds it covered (none
    // played: 0), and each round's upkeep learnt from its growth (null: not knowable here)
    ledgerRounds: 0, ledgerEffort: 0, liveUpkeep: [],
    collapseRound: null, deadPatches: [], done: false, reason: null };
}

export function opensStep(ev, state, meta) {
  if (ev.kind === "round_open") return { label: `Round ${ev.r + 1} / ${meta.rounds ?? "?"}`, round: ev.r, final: false };
  if (ev.kind === "episode_end") return { label: "End", round: null, final: true };
  return null;
}

function compact(module, d) {
  if (d.src === "pass") return "-";
  if (d.harvest === undefined && d.eat === undefined) return "?"; // a private ledger hides it
  if (module === "cleanup") return `h:${d.harvest} c:${d.clean}`;
  if (module === "harvest") return `p${d.patch} h:${d.harvest}`;
  if (module === "allelopathic") return `e:${(d.eat_color || "r")[0]}${d.eat} p:${(d.plant_color || "r")[0]}${d.plant}`;
  return `e:${(d.eat_color || "r")[0]}${d.eat}`;
}

function residual(module, st) {
  if (!st) return null;
  if (module === "cleanup") return st.apples;
  if (module === "harvest") return st.stocks.reduce((a, b) => a + b, 0);
  if (module === "allelopathic") return st.ripe.reduce((a, b) => a + b, 0);
  return st.counts.reduce((a, b) => a + b, 0);
}

/** A seat's slot: the replay names it; a live spectator only gets the alias (slots are
 *  restricted fields), which the table's seat list maps back. */
function slotOf(ev, meta, key = "slot", aliasKey = "alias") {
  if (Number.isInteger(ev[key])) return ev[key];
  const i = meta.aliases.indexOf(ev[aliasKey]);
  return i < 0 ? null : i;
}

/** What a module's residual counts, in its own picture ("62.2 apples left"). */
const LEFT = { cleanup: "apples", harvest: "fish", allelopathic: "ripe berries", mushrooms: "mushrooms" };

export function apply(state, ev, meta) {
  const tag = `R${(ev.r ?? 0) + 1}`;
  switch (ev.kind) {
    case "spectator_state": {
      // what a live spectator may see now (GET /tables/ID/spectator): scores and the resource
      const v = ev.state || {};
      if (Array.isArray(v.aliases) && v.aliases.length === state.n) meta.aliases = v.aliases;
      if (v.module) meta.module = state.module = v.module;
      if (Array.isArray(v.scores) && v.scores.length === state.n) state.scores = [...v.scores];
      if (v.state) state.resource = v.state;
      if (v.ledger) { // the public ledger per cog (ledger_public): what each took and kept up so far
        meta.aliases.forEach((a, i) => {
          const row = v.ledger[a];
          if (!row) return;
          state.extracted[i] = row.total_extracted;
          state.effort[i] = row.public_effort;
          state.given[i] = row.sanctions_given;
          state.received[i] = row.sanctions_received;
        });
        // live, the round's upkeep is restricted: the ledger's growth over exactly one round
        // is it; growth over several (rounds played before this spectator came, or between two
        // looks) cannot be split, so those rounds stay unknown rather than 0 and one lump
        const total = state.effort.reduce((x, y) => x + y, 0), played = v.rounds_played;
        if (Number.isInteger(played) && played > state.ledgerRounds) {
          for (let r = state.ledgerRounds; r < played; r++) state.liveUpkeep[r] = null;
          if (played === state.ledgerRounds + 1) state.liveUpkeep[played - 1] = total - state.ledgerEffort;
          state.ledgerRounds = played;
          state.ledgerEffort = total;
          const m = state.series.maintenance;
          for (let r = 0; r < m.length; r++) if (r < played && state.liveUpkeep[r] !== undefined) m[r] = state.liveUpkeep[r];
        }
      }
      return [];
    }
    case "episode_start":
      state.resource = ev.state ?? state.resource;
      if (ev.aliases) meta.aliases = ev.aliases;
      if (ev.module) meta.module = state.module = ev.module; // live tables learn it here
      if (ev.rounds) meta.rounds = ev.rounds;
      if (ev.norm_text !== undefined) meta.norm = ev.norm_text;
      return [{ tag: "", text: [`${ev.num_players ?? state.n} cogs share one ${ev.module} resource for ${ev.rounds} rounds.`,
        ev.norm_text ? ` ${ev.norm_text}` : ""] }];
    case "round_open":
      state.r = ev.r;
      if (ev.state) state.resource = ev.state;
      state.decisions = [];
      state.messages = [];
      state.sanctions = [];
      state.gains = Array(state.n).fill(0);
      state.gainsKnown = false; // until this round's resolve (restricted live: never)
      state.roundEffort = null; // likewise: live, the ledger's growth tells it (or nothing)
      return [];
    case "decision": {
      const slot = slotOf(ev, meta);
      if (slot !== null) {
        state.decisions[slot] = ev;
        state.recent[slot] = [...state.recent[slot], compact(state.module, ev)].slice(-LEDGER_RECENT);
      }
      return ev.src?.startsWith("fallback") ? [{ tag, bad: true, text: [{ b: ev.alias }, ` fell back (${ev.src.slice(9)})`] }] : [];
    }
    case "chat":
      state.messages.push({ alias: ev.alias, slot: slotOf(ev, meta), text: ev.text });
      return [{ tag, text: [{ b: ev.alias }, " says ", { q: ev.text }] }];
    case "resolve": {
      // per-slot arrays are restricted: a live spectator gets the round's totals later, from
      // the spectator state and the round's residual
      if (!Array.isArray(ev.extracted) || !Array.isArray(ev.effort)) return [];
      state.gains = ev.gains ?? state.gains;
      state.gainsKnown = Array.isArray(ev.gains);
      ev.extracted.forEach((x, i) => { state.extracted[i] += x; });
      ev.effort.forEach((x, i) => { state.effort[i] += x; });
      const took = ev.extracted.reduce((a, b) => a + b, 0), kept = ev.effort.reduce((a, b) => a + b, 0);
      state.roundEffort = kept;
      return [{ tag, text: [`The cogs take ${fmt(took, 2)} and put ${kept} unit${kept === 1 ? "" : "s"} into upkeep.`] }];
    }
    case "sanction": {
      const from = slotOf(ev, meta), to = slotOf(ev, meta, "target_slot", "target");
      if (from !== null && to !== null) {
        state.sanctions.push({ from, to });
        state.given[from] += 1;
        state.received[to] += 1;
      }
      return [{ tag, bad: true, text: [{ b: ev.alias }, ` sanctions `, { b: ev.target }, ` (−${fmt(ev.cost)} / −${fmt(ev.burn)})`] }];
    }
    case "void":
      return [{ tag, bad: true, text: [{ b: ev.alias }, ` — void: ${ev.cause.replace("_", " ")}${ev.target ? ` on ${ev.target}` : ""}`] }];
    case "trespass":
    case "unheld":
      return [{ tag, bad: true, text: [{ b: ev.alias }, ` ${ev.kind === "trespass" ? "trespasses on" : "has no hold on"} patch ${ev.patch ?? "?"} (voided)`] }];
    case "patch_dead":
      state.deadPatches.push(ev.patch);
      return [{ tag, bad: true, text: [`Patch ${ev.patch} dies.`] }];
    case "collapse":
      state.collapseRound = ev.r;
      return [{ tag, bad: true, text: [{ b: "The resource collapses." }] }];
    case "barren":
      return [{ tag, bad: true, text: ["No berry is ripe anywhere: the field is barren."] }];
    case "digesting": {
      const slot = slotOf(ev, meta);
      if (slot !== null) state.frozen[slot] = ev.until;
      return [{ tag, text: [{ b: ev.alias }, ` is digesting until round ${ev.until + 1}.`] }];
    }
    case "fallback":
    case "no_submission":
      return [{ tag, bad: true, text: [{ b: ev.alias }, ev.kind === "fallback" ? ` fell back (${ev.cause})` : " sent nothing (pass)"] }];
    case "round_end": {
      if (Array.isArray(ev.scores)) state.scores = ev.scores;
      if (ev.state_after) state.resource = ev.state_after;
      // indexed by the table's round: a spectator who joined a long table late (its last 500
      // events) has the rounds before the first one seen blank, not the seen ones renumbered
      const at = Number.isInteger(ev.r) ? ev.r : state.series.resource.length;
      while (state.series.resource.length < at) { state.series.resource.push(null); state.series.maintenance.push(null); }
      state.series.resource[at] = ev.residual;
      state.series.maintenance[at] = state.roundEffort ?? state.liveUpkeep[at] ?? null;
      // live, the round's resolve is restricted: its end is all a spectator's feed can say
      if (state.gainsKnown || !Number.isFinite(ev.residual)) return [];
      return [{ tag, text: [`Round ${(ev.r ?? 0) + 1} ended with ${fmt(round(ev.residual, 1), 1)} ${LEFT[state.module] ?? "of the resource"} left.`] }];
    }
    case "deadline":
      return [{ tag, bad: true, text: [`The episode stops early (${ev.cause}).`] }];
    case "episode_end":
      state.done = true;
      state.reason = ev.reason;
      return [{ tag: "end", text: [`The episode ends (${ev.reason}) after ${state.series.resource.length} rounds.`] }];
    default:
      return [];
  }
}

// ---- drawing -------------------------------------------------------------------------------

export function mount(root, meta) {
  const stage = h("div", { class: "panel stage", "data-testid": "stage" });
  const charts = h("div", { class: "panel" });
  const ledger = h("div", { class: "panel" });
  const chat = h("div", { class: "panel" });
  const feed = h("ul", { class: "feed", "data-testid": "feed" });
  root.append(h("div", { class: "stage-grid" },
    h("div", { class: "grid" }, stage, charts),
    h("div", { class: "side" }, ledger, chat, h("div", { class: "panel" }, h("h2", {}, "What happened"), feed))));
  const endcard = endCardSlot(stage);
  return {
    update(v) {
      const st = v.step.state;
      drawStage(stage, v, meta);
      drawCharts(charts, st, v.step);
      drawLedger(ledger, st, meta);
      drawChat(chat, st, meta);
      renderFeed(feed, v.steps, v.index);
      endcard(v.step.final, () => endCard(st, meta));
    },
  };
}

function drawStage(el, v, meta) {
  const st = v.step.state;
  const W = Math.max(300, Math.min((el.clientWidth || 600) - 16, 1000));
  const compact = W < 560;
  const cogsH = compact ? 112 : 124;
  const res = st.resource;
  const body = { cleanup: drawCleanup, harvest: drawHarvest, allelopathic: drawField, mushrooms: drawMushrooms }[meta.module];
  const resH = compact ? 250 : 300;
  const svg = svgRoot(W, cogsH + resH, { "aria-label": "the commons" });
  drawCogs(svg, st, meta, W, cogsH, compact);
  const g = s("g", { transform: `translate(0 ${cogsH})` });
  if (res && body) body(g, res, st, meta, W, resH, compact);
  svg.append(g);
  clear(el).append(...[h("h2", {}, `${MODULE_TITLE[meta.module] ?? meta.module} · ${v.step.round === null ? (st.done ? "final" : "start") : `round ${v.step.round + 1}`}`),
    meta.norm ? h("div", { class: "sub", style: { marginBottom: "6px" } }, `Posted norm: “${meta.norm.replace(/^Posted norm:\s*/, "")}”`) : null, svg]
    .filter(Boolean));
}

function cogX(i, n, W) {
  return ((i + 0.5) * W) / n;
}

/** The six cogs in a row (alphabetical by alias), this round's gains, sanctions as arrows. */
function drawCogs(svg, st, meta, W, H, compact) {
  const slots = meta.aliases.map((a, i) => [a, i]).sort((x, y) => (x[0] < y[0] ? -1 : 1)).map((p) => p[1]);
  const place = new Map(slots.map((slot, k) => [slot, k]));
  const n = slots.length;
  const y = H - (compact ? 56 : 62), R = compact ? 19 : 23;
  const defs = s("defs", {}, s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    s("path", { d: "M0,0 L10,5 L0,10 z", fill: "#ef5b5b" })));
  svg.append(defs);
  // sanctions: arcs above the row, payer → target
  st.sanctions.forEach((sc, k) => {
    const x1 = cogX(place.get(sc.from), n, W), x2 = cogX(place.get(sc.to), n, W);
    const lift = Math.min(y - R - 12, 26 + Math.abs(x2 - x1) * 0.12 + (k % 3) * 6);
    svg.append(s("path", { d: `M${x1},${y - R - 4} Q${(x1 + x2) / 2},${y - R - 4 - lift} ${x2},${y - R - 6}`, fill: "none",
      stroke: "#ef5b5b", "stroke-width": 2.2, "marker-end": "url(#arrow)", "data-testid": "sanction-arrow" }));
  });
  for (const slot of slots) {
    const x = cogX(place.get(slot), n, W);
    const frozen = st.r !== null && st.r < st.frozen[slot];
    const gain = st.gains[slot] ?? 0;
    // the round's gain where it is known; live it is restricted, so the score (never a false 0)
    const label = st.gainsKnown ? `${gain > 0 ? "+" : ""}${fmt(gain, 2)}` : `${fmt(round(st.scores[slot], SCORE_DP), SCORE_DP)} pts`;
    const policy = meta.names?.[slot] ? ` (${meta.names[slot]})` : "";
    const fav = meta.seats?.[slot]?.favorite;
    svg.append(s("g", { "data-testid": `cog-${slot}` },
      cogPath(x, y, R, seatColour(slot), frozen),
      s("text", { x, y: y + 5, "text-anchor": "middle", "font-size": compact ? 13 : 15, "font-weight": 800, fill: "#0e1320" }, meta.aliases[slot].replace(/^Cog-/, "")),
      fav && meta.module === "allelopathic" ? s("circle", { cx: x + R * 0.8, cy: y - R * 0.8, r: 5, fill: HUE[fav], stroke: "#0e1320", "stroke-width": 1.5 }) : null,
      s("text", { x, y: y + R + 16, "text-anchor": "middle", "font-size": compact ? 11 : 12.5, "font-weight": 700, fill: "#e7ebf3" }, meta.aliases[slot]),
      s("text", { x, y: y + R + (compact ? 29 : 31), "text-anchor": "middle", "font-size": compact ? 10 : 11.5, fill: "#f5c451" },
        label),
      frozen ? s("text", { x, y: y - R - 6, "text-anchor": "middle", "font-size": 10, fill: "#9ecbff" }, "digesting") : null,
      s("title", {}, `${meta.aliases[slot]}${policy}: score ${fmt(st.scores[slot], SCORE_DP)}`)));
  }
}

function cogPath(x, y, R, fill, dim) {
  const teeth = 8, inner = R * 0.82;
  let d = "";
  for (let k = 0; k < teeth * 2; k++) {
    const a0 = (k * Math.PI) / teeth, a1 = ((k + 1) * Math.PI) / teeth;
    const r = k % 2 ? inner : R;
    d += `${k ? "L" : "M"}${(x + r * Math.cos(a0)).toFixed(1)},${(y + r * Math.sin(a0)).toFixed(1)}L${(x + r * Math.cos(a1)).toFixed(1)},${(y + r * Math.sin(a1)).toFixed(1)}`;
  }
  return s("path", { d: d + "Z", fill, stroke: "#0e1320", "stroke-width": 2, opacity: dim ? 0.45 : 1 });
}

function mix(c1, c2, t) {
  const p = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  const [a, b] = [p(c1), p(c2)];
  return `rgb(${a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(",")})`;
}

function kpis(g, items, x, y, compact) {
  let xx = x;
  items.forEach(([label, value, colour]) => {
    g.append(s("text", { x: xx, y, "font-size": compact ? 10 : 11, fill: "#8f9ab3", "letter-spacing": 0.6 }, label.toUpperCase()),
      s("text", { x: xx, y: y + (compact ? 18 : 22), "font-size": compact ? 16 : 20, "font-weight": 800, fill: colour ?? "#e7ebf3", "data-testid": `kpi-${label.split(" ")[0]}` }, value));
    xx += Math.max(label.length * (compact ? 7 : 8), value.length * (compact ? 10 : 12.5)) + (compact ? 16 : 30);
  });
}

function drawCleanup(g, res, st, meta, W, H, compact) {
  const p = res.pollution, dead = res.dead;
  const top = compact ? 48 : 56;
  const orchardH = H - top - (compact ? 62 : 74);
  kpis(g, [["apples", `${fmt(res.apples, 1)}`, "#f5c451"], ["pollution", fmt(p, 2), p > 0.5 ? "#ef5b5b" : "#e7ebf3"],
    ["regrowth", fmt(dead ? 0 : meta.rules.apple_regrowth * (1 - p), 3)], ["cleaned", String(res.cleaned_last_round ?? 0)]], 12, 12, compact);
  // the orchard: ten trees, ten apple places each; the grass browns with pollution
  g.append(s("rect", { x: 8, y: top, width: W - 16, height: orchardH, rx: 12, fill: dead ? "#3b3a36" : mix("#1f5132", "#5a4a2a", p), "data-testid": "orchard" }));
  const trees = 10, cols = compact ? 5 : 10, rows = Math.ceil(trees / cols);
  const cw = (W - 16) / cols, rh = orchardH / rows;
  let left = Math.floor(res.apples);
  for (let k = 0; k < trees; k++) {
    const cx = 8 + (k % cols + 0.5) * cw, cy = top + (Math.floor(k / cols) + 0.5) * rh;
    const r = Math.min(cw, rh) * 0.36;
    g.append(s("rect", { x: cx - 3, y: cy + r * 0.6, width: 6, height: r * 0.8, fill: "#6b4a2b" }),
      s("circle", { cx, cy, r, fill: dead ? "#55524a" : mix("#2f8f4e", "#7a6a3a", p) }));
    for (let a = 0; a < 10 && !dead; a++) {
      const on = left > 0;
      left -= 1;
      if (!on) continue;
      const ang = (a / 10) * 2 * Math.PI, rr = r * (a % 2 ? 0.45 : 0.72);
      g.append(apple(cx + rr * Math.cos(ang), cy + rr * Math.sin(ang) - 2, compact ? 8 : 11));
    }
  }
  if (res.apples < meta.rules.collapse_apples || dead) {
    g.append(s("text", { x: W / 2, y: top + orchardH / 2, "text-anchor": "middle", "font-size": compact ? 18 : 26, "font-weight": 800, fill: "#ffb3b3" },
      dead ? `Collapsed in round ${(res.collapse_round ?? 0) + 1}` : "Near collapse"));
  }
  // the river, shaded by pollution
  const ry = top + orchardH + 10, rh2 = compact ? 40 : 50;
  const wave = Array.from({ length: 13 }, (_, k) => `${8 + (k * (W - 16)) / 12},${ry + (k % 2 ? 6 : 0)}`).join(" L");
  g.append(s("path", { d: `M${wave} L${W - 8},${ry + rh2} L8,${ry + rh2} Z`, fill: mix("#2b6cd4", "#6b4f2a", p), "data-testid": "river" }),
    s("text", { x: 18, y: ry + rh2 - 12, "font-size": compact ? 11 : 13, fill: "#e7ebf3", opacity: 0.9 }, `river · pollution ${fmt(p, 2)} · apples ${fmt(res.apples, 1)} / ${meta.rules.apple_capacity}`));
}

function drawHarvest(g, res, st, meta, W, H, compact) {
  const n = res.stocks.length;
  const cols = compact ? 3 : n, rows = Math.ceil(n / cols);
  const top = compact ? 40 : 48;
  kpis(g, [["stock", fmt(res.stocks.reduce((a, b) => a + b, 0), 1), "#f5c451"], ["dead", String(res.dead.filter(Boolean).length)],
    ["rights", res.property_rights]], 12, 10, compact);
  const cw = (W - 16) / cols, ch = (H - top - 8) / rows;
  const holders = (p) => {
    if (res.property_rights === "closed") return [meta.aliases[res.owner[p]]];
    if (res.property_rights === "partnership") return res.pairs[Math.floor(p / 2)].map((x) => meta.aliases[x]);
    return [];
  };
  for (let p = 0; p < n; p++) {
    const x = 8 + (p % cols) * cw + 5, y = top + Math.floor(p / cols) * ch + 5, w = cw - 10, hh = ch - 10;
    const stock = res.stocks[p], frac = Math.max(0, Math.min(1, stock / meta.rules.patch_capacity));
    g.append(s("g", { "data-testid": `patch-${p}` },
      s("rect", { x, y, width: w, height: hh, rx: 10, fill: res.dead[p] ? "#2a2a2e" : "#3a2e1f", stroke: "#4d4030" }),
      res.dead[p] ? tombstone(x + w / 2, y + hh / 2 + 4, Math.min(w, hh) * 0.5)
        : s("rect", { x: x + 4, y: y + 4 + (hh - 8) * (1 - frac), width: w - 8, height: (hh - 8) * frac, rx: 7, fill: "#3f9b57" }),
      // at 360 px a patch is ~80 px wide: "#3" and the stock fit side by side, the holders are cut
      s("text", { x: x + 10, y: y + 20, "font-size": compact ? 12 : 14, "font-weight": 700, fill: "#e7ebf3" }, compact ? `#${p}` : `patch ${p}`),
      s("text", { x: x + w - 10, y: y + 20, "text-anchor": "end", "font-size": compact ? 13 : 16, "font-weight": 800, fill: res.dead[p] ? "#8f9ab3" : "#f5c451" },
        res.dead[p] ? "dead" : fmt(stock, 1)),
      holders(p).length ? s("text", { x: x + 10, y: y + hh - 10, "font-size": compact ? 10 : 11.5, fill: "#e7ebf3" }, clip(holders(p).join(" & "), Math.max(4, Math.floor((w - 14) / (compact ? 5.6 : 6.4))))) : null));
  }
}

function drawField(g, res, st, meta, W, H, compact) {
  const top = compact ? 40 : 48;
  kpis(g, [["ripe", fmt(res.ripe.reduce((a, b) => a + b, 0), 1), "#f5c451"],
    ["planted", res.planted.join(" / ")], ["barren", res.barren ? "yes" : "no", res.barren ? "#ef5b5b" : null]], 12, 10, compact);
  // the field: 60 plots coloured by the planted shares, canonical order
  const cols = compact ? 10 : 20, rows = meta.rules.field_size / cols;
  const fieldW = compact ? W - 16 : (W - 16) * 0.58;
  const cell = Math.min(fieldW / cols, (H - top - (compact ? 100 : 16)) / rows);
  const plots = COLOURS.flatMap((c, i) => Array(res.planted[i]).fill(c));
  plots.forEach((c, k) => {
    const x = 8 + (k % cols) * cell, y = top + Math.floor(k / cols) * cell;
    g.append(s("rect", { x: x + 1, y: y + 1, width: cell - 2, height: cell - 2, rx: 3, fill: HUE[c], opacity: 0.85, "data-testid": "plot" }));
  });
  // ripe berries per colour: a row of dots (one per ripe berry, fractions shown as a partial dot)
  const bx = compact ? 8 : 8 + fieldW + 24, by = compact ? top + rows * cell + 18 : top + 6;
  const rowH = compact ? 26 : 40;
  COLOURS.forEach((c, i) => {
    const y = by + i * rowH;
    const ripe = res.ripe[i];
    g.append(s("text", { x: bx, y: y + 12, "font-size": 12, fill: "#e7ebf3", "font-weight": 700 }, c),
      s("text", { x: bx + 46, y: y + 12, "font-size": 12, fill: "#f5c451" }, fmt(ripe, 1)));
    // the dots fit the room left of the stage's edge: narrower spacing first, then a "+N"
    const dots = Math.ceil(ripe), r = compact ? 3.6 : 4.6, x0 = bx + 86, room = W - 8 - r - x0 - 30;
    const space = Math.max(2 * r + 1, Math.min(compact ? 9 : 12, room / Math.max(1, dots - 1)));
    const shown = Math.min(dots, 1 + Math.floor(room / space));
    for (let k = 0; k < shown; k++) {
      g.append(s("circle", { cx: x0 + k * space, cy: y + 8, r, fill: HUE[c], opacity: k < Math.floor(ripe) ? 1 : 0.4, "data-testid": "berry" }));
    }
    if (shown < dots) g.append(s("text", { x: x0 + shown * space, y: y + 12, "font-size": 11, fill: "#e7ebf3" }, `+${dots - shown}`));
  });
}

function drawMushrooms(g, res, st, meta, W, H, compact) {
  const top = compact ? 40 : 48;
  kpis(g, [["mushrooms", fmt(res.counts.reduce((a, b) => a + b, 0), 0), "#f5c451"],
    ["eaten", fmt(res.eaten_total.reduce((a, b) => a + b, 0), 0)]], 12, 10, compact);
  const pays = { red: "pays the eater", green: "pays everyone", blue: "pays the others" };
  const rowH = (H - top - 6) / 3;
  COLOURS.forEach((c, i) => {
    const y = top + i * rowH;
    g.append(s("rect", { x: 8, y: y + 3, width: W - 16, height: rowH - 6, rx: 10, fill: "#1b2336" }),
      s("text", { x: 20, y: y + 22, "font-size": compact ? 12 : 14, "font-weight": 800, fill: HUE[c] }, `${c} · ${fmt(res.counts[i], 0)}`),
      s("text", { x: 20, y: y + (compact ? 36 : 40), "font-size": compact ? 10 : 11.5, fill: "#8f9ab3" }, `${pays[c]} · eaten ${fmt(res.eaten_total[i], 0)}`));
    const x0 = compact ? 20 : 190, space = Math.min(compact ? 21 : 40, (W - x0 - 20) / meta.rules.mushroom_colour_cap);
    const yy = compact ? y + rowH - 18 : y + rowH / 2;
    for (let k = 0; k < Math.floor(res.counts[i]); k++) g.append(mushroom(x0 + k * space + space / 2, yy, Math.min(space, compact ? 20 : 32), HUE[c]));
  });
}

function drawCharts(el, st, step) {
  const w = Math.max(260, el.clientWidth - 28);
  const at = step.round === null ? null : step.round;
  clear(el).append(h("h2", {}, "Resource and upkeep over the rounds"),
    h("div", { class: "grid", style: { gridTemplateColumns: w > 700 ? "1fr 1fr" : "1fr" } },
      lineChart({ series: [{ name: "resource left (residual value)", colour: "#f5c451", values: st.series.resource }],
        width: w > 700 ? w / 2 - 8 : w, height: 170, at, testid: "resource-chart" }),
      lineChart({ series: [{ name: "maintenance effort (units)", colour: "#4fd1c5", values: st.series.maintenance }],
        width: w > 700 ? w / 2 - 8 : w, height: 170, at, yMin: 0, testid: "effort-chart" })),
    ...(st.series.maintenance.some((v) => v === null) // Element.append writes a null as "null"
      ? [h("p", { class: "muted", "data-testid": "effort-unknown" }, "Upkeep is public only as a running total: rounds played before you started watching (or between two updates) are left blank here; the replay has every round.")]
      : []));
}

function drawLedger(el, st, meta) {
  const rk = ranks(st.scores);
  const rows = order(st.scores).map((i) => h("tr", { class: rk[i] === 1 ? "first" : "", "data-testid": `ledger-${i}` },
    h("td", { style: { whiteSpace: "nowrap" }, title: `recent: ${st.recent[i].join(" · ") || "–"}` }, h("i", { class: "sw", style: { background: seatColour(i) } }), " ", h("span", { class: "alias" }, meta.aliases[i]),
      h("div", { class: "policy" }, meta.names[i])),
    h("td", { class: "num", "data-field": "scores" }, fmt(round(st.scores[i], SCORE_DP), SCORE_DP)),
    h("td", { class: "num", "data-field": "total_extracted" }, fmt(round(st.extracted[i], SCORE_DP), SCORE_DP)),
    h("td", { class: "num", "data-field": "public_effort" }, st.effort[i]),
    h("td", { class: "num", "data-field": "sanctions" }, `${st.given[i]}/${st.received[i]}`)));
  clear(el).append(h("h2", {}, "Ledger"), h("div", { class: "scroll-x" }, h("table", { class: "data" },
    h("thead", {}, h("tr", {}, h("th", {}, "alias"), h("th", { class: "num" }, "score"), h("th", { class: "num" }, "taken"),
      h("th", { class: "num" }, "upkeep"), h("th", { class: "num" }, "sanctions given / received"))),
    h("tbody", {}, rows))));
}

function drawChat(el, st) {
  clear(el).append(h("h2", {}, "Chat this round"));
  if (!st.messages.length) { el.append(h("p", { class: "muted" }, "Nobody spoke.")); return; }
  el.append(h("ul", { class: "chat" }, st.messages.map((m) => h("li", {},
    h("i", { class: "sw", style: { background: seatColour(m.slot) } }), " ", h("b", {}, m.alias), " ", m.text))));
}

function endCard(st, meta) {
  const best = order(st.scores);
  const rk = ranks(st.scores);
  const res = meta.results;
  const sub = [`${st.series.resource.length} rounds · ${st.reason}`];
  if (res) sub.push(`welfare ${fmt(res.welfare, 2)}`, `resource left ${fmt(res.residual_value, 2)}`);
  if (st.collapseRound !== null) sub.push(`collapsed in round ${st.collapseRound + 1}`);
  if (st.deadPatches.length) sub.push(`${st.deadPatches.length} dead patch${st.deadPatches.length === 1 ? "" : "es"}`);
  return [h("h2", {}, "Final scores"), h("div", { class: "sub", "data-testid": "end-summary" }, sub.join(" · ")),
    podium(best.map((i) => ({ who: meta.aliases[i], policy: meta.names[i], value: fmt(round(st.scores[i], 1), 1), rank: rk[i] }))),
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "alias"),
      h("th", { class: "num" }, "score"), h("th", { class: "num" }, "taken"), h("th", { class: "num" }, "upkeep"), h("th", { class: "num wide-only" }, "sanctions"))),
    h("tbody", {}, best.map((i) => h("tr", { "data-testid": `final-${i}` },
      h("td", { class: "num" }, rk[i]), h("td", {}, h("span", { class: "alias" }, meta.aliases[i]), h("div", { class: "policy" }, meta.names[i])),
      h("td", { class: "num", "data-field": "scores" }, fmt(round(st.scores[i], SCORE_DP), SCORE_DP)),
      h("td", { class: "num", "data-field": "total_extracted" }, fmt(round(st.extracted[i], SCORE_DP), SCORE_DP)),
      h("td", { class: "num", "data-field": "public_effort" }, st.effort[i]),
      h("td", { class: "num wide-only", "data-field": "sanctions" }, `${st.given[i]} / ${st.received[i]}`))))),
  ];
}

/** The Play page's turn heading: rounds count from 0 in the view, from 1 for people. */
export function playTurnTitle(view) {
  return Number.isInteger(view?.round) ? `round ${view.round + 1} of ${view.rounds}` : "";
}

/** The Play page's controls: every field a cog may send this round (rules §5). The turn's
 *  legal actions name the module's own fields; the rest comes from the seat's own view —
 *  sanctions (another alias, at `sanction_cost`) when `sanctions_enabled`, one chat line of at
 *  most `chat_max_chars` when `chat_enabled`, the patches with their stocks (harvest), the
 *  colours with what they pay (the own favourite in allelopathic) — and the private note,
 *  pre-filled with `your_note` and sent only when changed (an absent note keeps the stored
 *  one; an emptied box clears it). `rules` is the game descriptor's `rule_numbers`. */
export function playControls(legal, view, rules = {}) {
  const { budget, patch, ...fields } = legal || {};
  const v = view || {};
  const ms = v.module_state || {};
  const out = [];
  if (patch !== undefined && Array.isArray(ms.patches)) out.push(patchControl(ms));
  for (const c of controlsOf(fields)) {
    if (c.kind === "int") {
      c.label = INT_LABEL[c.name] ?? c.name;
      if (Number.isInteger(budget)) c.hint = BUDGET_HINT[v.module]?.(budget) ?? `${budget} effort units in all`;
      else if (v.module === "harvest" && Number.isInteger(v.effort_budget)) c.hint = `Each of your ${v.effort_budget} effort units you do not take is upkeep.`;
      if (c.name === "eat" && ms.you_may_eat === false) c.hint = `You are digesting until round ${ms.frozen_until + 1}: what you eat this round is void.`;
    }
    if (c.kind === "choice" && COLOUR_FIELD[c.name]) colourControl(c, v.module, ms);
    out.push(c);
  }
  const me = v.alias;
  if (v.sanctions_enabled && Array.isArray(v.aliases)) {
    out.push({ name: "sanction", kind: "choice", label: "Sanction one cog (optional)", checked: null,
      hint: `You pay ${fmt(v.sanction_cost)}, the cog you name loses ${fmt(v.sanction_burn)}.`,
      options: [{ value: null, label: "nobody" }, ...v.aliases.filter((a) => a !== me).map((a) => ({ value: a, label: a }))] });
  }
  if (v.chat_enabled && Number.isInteger(v.chat_max_chars)) {
    out.push({ name: "message", kind: "text", maxLength: v.chat_max_chars,
      label: `Chat: one public line (optional, ≤ ${v.chat_max_chars} characters)`, hint: "Every cog reads it next round." });
  }
  const noteMax = rules.note_max_chars;
  out.push({ name: "note", kind: "text", maxLength: Number.isInteger(noteMax) ? noteMax : undefined, value: v.your_note ?? "",
    label: `Private note to yourself${Number.isInteger(noteMax) ? ` (≤ ${noteMax} characters)` : ""}`,
    hint: "Only you see it, next round; it is never recorded. Empty the box to clear it." });
  return out;
}

const INT_LABEL = { harvest: "Harvest (take)", clean: "Clean (upkeep)", eat: "Eat (take)", plant: "Plant (upkeep)" };
const BUDGET_HINT = {
  cleanup: (b) => `Harvest + clean ≤ ${b} effort units; over that, clean is cut first.`,
  allelopathic: (b) => `Eat + plant ≤ ${b} effort units; over that, plant is cut first.`,
};
const COLOUR_FIELD = { eat_color: "Colour to eat", plant_color: "Colour to plant" };
const MUSHROOM_PAYS = { red: "pays you", green: "pays every cog", blue: "pays the other cogs" };

/** The colours with what each one means for this seat now: ripe berries and the own favourite
 *  (allelopathic), mushrooms left and who they pay (mushrooms). */
function colourControl(c, module, ms) {
  c.label = COLOUR_FIELD[c.name];
  const fav = ms.your_favorite;
  c.options = c.choices.map((col) => {
    const bits = [];
    if (module === "allelopathic" && c.name === "eat_color") {
      if (ms.ripe) bits.push(`${fmt(ms.ripe[col], 1)} ripe`);
      if (col === fav) bits.push(`your favourite, ${fmt(ms.favorite_bonus)} a berry`);
    }
    if (module === "allelopathic" && c.name === "plant_color" && ms.planted) bits.push(`${ms.planted[col]} planted`);
    if (module === "mushrooms") {
      if (ms.counts) bits.push(`${fmt(ms.counts[col], 0)} left`);
      bits.push(MUSHROOM_PAYS[col]);
    }
    return { value: col, label: bits.length ? `${col} (${bits.join(", ")})` : col };
  });
  if (fav && c.name === "eat_color" && c.choices.includes(fav)) c.checked = fav;
}

/** Harvest: the patch to fish, each with its stock; dead patches and, under closed or
 *  partnership rights, the seat's own patches are marked. The first own live patch is chosen. */
function patchControl(ms) {
  const own = new Set(ms.your_patches || []);
  const open = ms.property_rights === "open";
  const options = ms.patches.map((p) => ({ value: p.id,
    label: `patch ${p.id} (${p.dead ? "dead" : `${fmt(p.stock, 1)} fish`}${!open && own.has(p.id) ? ", yours" : ""})` }));
  const pick = ms.patches.find((p) => !p.dead && (open || own.has(p.id))) ?? ms.patches[0];
  return { name: "patch", kind: "choice", label: "Patch to fish", options, checked: pick?.id,
    hint: open ? "Open rights: any cog may fish any patch." : ms.property_rights === "closed"
      ? "Closed rights: only a patch's owner may fish it." : "Partnership: a pair fishes a patch only when both name it." };
}

// -- the Play page's seat renderer (web/static/js/seat.js) ---------------------------------------
// The view's rounds count from 0; people read them from 1. Numbers are rounded as the rules'
// results report them (SCORE_DP), stocks to one decimal.

/** The resource in the module's own picture. */
function resourceText(module, ms) {
  if (module === "cleanup") return `The orchard holds ${fmt(ms.apples, 1)} of ${fmt(ms.capacity, 0)} apples; the river's pollution is ${fmt(ms.pollution, 2)}. Cleaning lowers the pollution so the orchard regrows${ms.dead ? " — the orchard is dead" : ""}.`;
  if (module === "harvest") return `The fishing patches: ${(ms.patches ?? []).map((p) => `patch ${p.id} ${p.dead ? "dead" : `${fmt(p.stock, 1)} fish`}`).join(", ")}. ${ms.property_rights === "open" ? "Anyone may fish anywhere." : `You may fish patch ${(ms.your_patches ?? []).join(", ") || "none"}.`}`;
  if (module === "allelopathic") return `Ripe berries: ${Object.entries(ms.ripe ?? {}).map(([c, n]) => `${c} ${fmt(n, 1)}`).join(", ")}; planted: ${Object.entries(ms.planted ?? {}).map(([c, n]) => `${c} ${n}`).join(", ")}. Your favourite colour is ${ms.your_favorite}.`;
  if (module === "mushrooms") return `Mushrooms left: ${Object.entries(ms.counts ?? {}).map(([c, n]) => `${c} ${fmt(n, 0)} (${MUSHROOM_PAYS[c] ?? ""})`).join(", ")}.${ms.you_may_eat === false ? ` You are digesting until round ${ms.frozen_until + 1}.` : ""}`;
  return null;
}

/** The round, the resource, the norm, last round for you, chat, the public ledger per cog. */
export function seatView(v, ctx) {
  const ms = v.module_state ?? {};
  const res = resourceText(v.module, ms);
  const last = v.round > 0 ? [
    Number.isFinite(v.your_last_gain) ? `Last round you gained ${fmt(round(v.your_last_gain, SCORE_DP), SCORE_DP)}.` : "",
    Number.isFinite(v.last_round_total_extracted) ? `All cogs together took ${fmt(round(v.last_round_total_extracted, SCORE_DP), SCORE_DP)}.` : "",
    v.sanctions_received_last_round ? `You were sanctioned ${v.sanctions_received_last_round} time${v.sanctions_received_last_round === 1 ? "" : "s"}.` : "",
  ].filter(Boolean).join(" ") : "";
  const ledger = v.ledger ? Object.entries(v.ledger).sort(([a], [b]) => a.localeCompare(b)) : [];
  return [
    h("p", { "data-testid": "seat-now" }, `Round ${v.round + 1} of ${v.rounds}. You are ${v.alias}, with ${fmt(round(v.score ?? 0, SCORE_DP), SCORE_DP)} points. You have ${v.effort_budget} effort units this round.`),
    res ? h("p", {}, res) : null,
    last ? h("p", {}, last) : null,
    v.norm_text ? h("p", {}, "The posted norm: ", h("q", {}, v.norm_text.replace(/^posted norm:\s*/i, ""))) : null,
    v.messages_last_round?.length ? h("div", {}, h("h3", {}, "Chat last round"), h("ul", {}, v.messages_last_round.map((m) => h("li", {}, `${m.alias}: “${m.text}”`)))) : null,
    ledger.length ? h("div", { class: "scroll-x" }, h("table", { class: "data", "data-testid": "seat-ledger" }, h("caption", { class: "sr-only" }, "The public ledger"),
      h("thead", {}, h("tr", {}, ["cog", "taken", "upkeep effort", "sanctions given / received"].map((c, i) => h("th", { scope: "col", class: i ? "num" : null }, c)))),
      h("tbody", {}, ledger.map(([a, x]) => h("tr", { class: a === v.alias ? "now-row" : "" }, h("td", {}, a === v.alias ? `${a} (you)` : a),
        h("td", { class: "num" }, fmt(round(x.total_extracted, SCORE_DP), SCORE_DP)), h("td", { class: "num" }, x.public_effort),
        h("td", { class: "num" }, `${x.sanctions_given} / ${x.sanctions_received}`)))))) : null,
  ];
}

const DID = { harvest: "took", clean: "cleaned", eat: "ate", plant: "planted" };

/** Your decision and the round's end in a sentence each. */
export function seatHappened(ev, view, ctx) {
  const r = Number.isInteger(ev.r) ? ev.r + 1 : null;
  if (ev.kind === "decision" && ev.alias === ctx.alias) {
    const parts = Object.entries(DID).filter(([k]) => Number.isFinite(ev[k]) && ev[k] > 0).map(([k, w]) => `${w} ${ev[k]}${ev[`${k}_color`] ? ` ${ev[`${k}_color`]}` : ""}`);
    if (Number.isInteger(ev.patch)) parts.push(`at patch ${ev.patch}`);
    if (ev.sanction) parts.push(`sanctioned ${ev.sanction}`);
    return `Round ${r}: you ${parts.length ? parts.join(", ") : "put in no effort"}.`;
  }
  if (ev.kind === "round_end") return `Round ${r} ended${Number.isFinite(ev.residual) ? ` with ${fmt(round(ev.residual, 1), 1)} ${LEFT[view?.module] ?? "of the resource"} left` : ""}.`;
  if (ev.kind === "sanction" && ev.target === ctx.alias) return `Round ${r}: ${ev.alias ?? "a cog"} sanctioned you.`;
  return null;
}

export function seatMove(action, v) {
  const parts = Object.entries(DID).filter(([k]) => Number.isFinite(action[k])).map(([k, w]) => `${w} ${action[k]}${action[`${k}_color`] ? ` ${action[`${k}_color`]}` : ""}`);
  if (action.sanction) parts.push(`sanction ${action.sanction}`);
  if (action.message) parts.push(`said “${action.message}”`);
  return `round ${(v?.round ?? 0) + 1}: ${parts.join(", ") || "no effort"}`;
}

/** The end banner: your score as the results round it, and what you took. */
export function seatEnd(results, seat) {
  const scores = results?.scores;
  if (!Array.isArray(scores) || scores[seat] === undefined) return null;
  const mine = round(scores[seat], SCORE_DP);
  return { score: mine, rank: 1 + scores.filter((x) => round(x, SCORE_DP) > mine).length, of: scores.length,
    lines: Array.isArray(results.total_extracted) ? [`You took ${fmt(round(results.total_extracted[seat], SCORE_DP), SCORE_DP)} in all.`] : [] };
}
