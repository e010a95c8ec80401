// Ledger in the Theater: eight posts on a plaza, halo rings, the round's four meetings drawn
// between partners (handshake, knife, two knives, broken coin), red threads between flagged
// ring pairs, the last five gossip cards, a scorebug ranked by median and an end card.
// Replay format `ledger.replay.v1` (spec ledger.md §15); live events have the same shape.

import { h, s, svgRoot, clear, fmt, median, mean, sum, order, ranks, seatColour, clip, round } from "../util.js";
import { renderFeed } from "../feed.js";
import { knife, twoKnives, handshake, brokenCoin } from "../icons.js";
import { endCardSlot, podium } from "../endcard.js";

export const id = "ledger";
export const title = "Ledger";

// The rule numbers the viewer re-derives with (ledger.md §7, §10: seats, conduct thresholds,
// ring flags) come from the server: the descriptor's `rule_numbers`, in `meta.rules`.
const BOARD_SHOWN = 5;
const SUBGAME_NAME = { DILEMMA: "Dilemma", TRUST: "Trust", ULTIMATUM: "Ultimatum" };

// ---- header, fold --------------------------------------------------------------------------

export function metaFromReplay(doc) {
  return { aliases: doc.aliases, names: doc.policyNames, variant: doc.config?.variant,
    seed: doc.config?.seed, rounds: doc.config?.rounds ?? doc.results?.maxRounds,
    results: doc.results ?? null };
}

export function metaFromTable(t) {
  const seats = t.seats || [];
  const cfg = t.config || {};
  return { aliases: seats.map((x, i) => x?.alias ?? `Seat ${i}`),
    names: seats.map((x) => x?.policy ?? x?.policy_name ?? x?.name ?? ""),
    variant: t.variant, seed: cfg.seed, rounds: cfg.rounds, results: null };
}

export function eventsOfReplay(doc) {
  return doc.events;
}

export function initialState(meta) {
  const SEATS = meta.rules.seats;
  return { round: null, played: 0, pairs: [], record: [], board: [], memos: {}, done: false, reason: null,
    seats: Array.from({ length: SEATS }, () => ({ pays: [], kind: 0, harsh: 0, fallbacks: 0, timeouts: 0 })) };
}

export function opensStep(ev, state, meta) {
  if (ev.kind === "round") return { label: `Round ${ev.round + 1} / ${meta.rounds ?? "?"}`, round: ev.round, final: false };
  if (ev.kind === "end") return { label: "End", round: null, final: true };
  return null;
}

/** Is each side kind? (§7: the first mover is `a` in TRUST and ULTIMATUM.) */
export function conduct(subgame, moveA, moveB, rules) {
  if (subgame === "TRUST") return [moveA >= rules.trust_kind_send, moveB >= rules.trust_kind_percent];
  if (subgame === "ULTIMATUM") return [moveA >= rules.ultimatum_kind_offer, moveB <= rules.ultimatum_kind_floor];
  return [moveA === 0, moveB === 0];
}

export function moveText(subgame, side, move) {
  if (subgame === "DILEMMA") return move === 0 ? "cooperate" : "defect";
  if (subgame === "TRUST") return side === 0 ? `sent ${move}` : `returned ${move}%`;
  return side === 0 ? `offered ${move}` : `floor ${move}`;
}

function shortMove(subgame, side, move) {
  if (subgame === "DILEMMA") return move === 0 ? "C" : "D";
  if (subgame === "TRUST") return side === 0 ? `s${move}` : `${move}%`;
  return side === 0 ? `o${move}` : `≥${move}`;
}

/** handshake | knife | knives | coin — the mark a resolved meeting gets on the plaza. */
export function markOf(m, rules) {
  if (m.subgame === "ULTIMATUM" && m.payA === 0 && m.payB === 0) return "coin";
  const [ka, kb] = conduct(m.subgame, m.moveA, m.moveB, rules);
  return ka && kb ? "handshake" : ka || kb ? "knife" : "knives";
}

const MARK_WORD = { handshake: "kind / kind", knife: "one harsh", knives: "both harsh", coin: "no deal: 0 / 0" };

export function apply(state, ev, meta) {
  const A = (i) => meta.aliases[i] ?? `Seat ${i}`;
  switch (ev.kind) {
    case "start":
      return [{ tag: "", text: ["Eight seats take their posts on the plaza."] }];
    case "round":
      state.round = ev.round;
      state.pairs = ev.pairs.map((p) => ({ ...p, resolved: false }));
      return [{ tag: `R${ev.round + 1}`, text: [`Round ${ev.round + 1} opens: `,
        ev.pairs.map((p) => `${A(p.a)} & ${A(p.b)} (${SUBGAME_NAME[p.subgame]})`).join(", ")] }];
    case "meeting": {
      const m = { round: ev.round, a: ev.a, b: ev.b, subgame: ev.subgame, moveA: ev.moveA,
        moveB: ev.moveB, payA: ev.payA, payB: ev.payB };
      const slot = state.pairs.find((p) => p.a === ev.a && p.b === ev.b) ?? state.pairs[ev.pair];
      if (slot) Object.assign(slot, m, { resolved: true,
        flags: { a: flags(ev, "A"), b: flags(ev, "B") } });
      state.record.push(m);
      const [ka, kb] = conduct(m.subgame, m.moveA, m.moveB, meta.rules);
      for (const [seat, pay, kind, side] of [[m.a, m.payA, ka, "A"], [m.b, m.payB, kb, "B"]]) {
        const st = state.seats[seat];
        st.pays.push(pay);
        if (kind) st.kind += 1; else st.harsh += 1;
        if (ev[`fallback${side}`]) st.fallbacks += 1;
        st.timeouts += ev[`timeouts${side}`] || 0;
      }
      const mark = markOf(m, meta.rules);
      // memos are their author's scratchpad: live spectators never get them (restricted
      // fields), the replay has them in the meeting where they were written
      const memos = [[m.a, ev.memoA], [m.b, ev.memoB]].filter(([, text]) => text)
        .map(([seat, text]) => {
          state.memos[seat] = { round: ev.round, text };
          return { tag: `R${ev.round + 1}`, memo: true, text: [{ b: A(seat) }, " writes a memo: ", { q: text }] };
        });
      return [...memos, { tag: `R${ev.round + 1}`, bad: mark !== "handshake", text: [
        { b: A(m.a) }, ` ${moveText(m.subgame, 0, m.moveA)}, `, { b: A(m.b) },
        ` ${moveText(m.subgame, 1, m.moveB)} — ${SUBGAME_NAME[m.subgame]} pays ${m.payA} / ${m.payB} (${MARK_WORD[mark]})`] }];
    }
    case "gossip":
      state.board.push({ round: ev.round, author: ev.author, subject: ev.subject, text: ev.text });
      return [{ tag: `R${ev.round + 1}`, text: [{ b: A(ev.author) }, ` on ${A(ev.subject)}: `, { q: ev.text }] }];
    case "end":
      state.done = true;
      state.reason = ev.reason;
      state.played = ev.round;
      return [{ tag: "end", text: [`The episode ends (${ev.reason}) after ${ev.round} rounds.`] }];
    default:
      return [];
  }
}

function flags(ev, side) {
  return ["fallback", "clamped"].filter((f) => ev[`${f}${side}`]).concat(ev[`timeouts${side}`] ? ["timeout"] : []);
}

// ---- derived statistics (§7, §9, §10) -------------------------------------------------------

export function seatStats(state, rules) {
  return state.seats.map((st) => ({
    median: median(st.pays), mean: mean(st.pays), total: sum(st.pays), meetings: st.pays.length,
    kind: st.kind, harsh: st.harsh, halo: st.kind + st.harsh ? st.kind / (st.kind + st.harsh) : rules.neutral_halo,
  }));
}

/** §10: flagged pairs and rings (components of ≥ 3 seats) from a meeting list. */
export function detectRings(record, rules) {
  const n = rules.seats;
  const pairs = [];
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const mutual = record.filter((m) => (m.a === a && m.b === b) || (m.a === b && m.b === a));
      const met = mutual.length;
      if (met < rules.ring_min_meetings) continue;
      const inside = sum(mutual.map((m) => m.payA + m.payB));  // inMean = inside / (2·met)
      let outSum = 0;
      let outCount = 0;
      for (const m of record) {
        const has = (x) => m.a === x || m.b === x;
        const payOf = (x) => (m.a === x ? m.payA : m.payB);
        for (const [x, y] of [[a, b], [b, a]]) {
          if (has(x) && !has(y)) { outSum += payOf(x); outCount += 1; }
        }
      }
      // the thresholds in integers, as the rules engine tests them (rings.py): a float mean
      // of 6.333… − 3.333… is 2.999…, and would miss a pair the results flag
      const scale = outCount || 1;
      const flagged = inside >= rules.ring_min_in_mean * 2 * met
        && inside * scale - 2 * met * outSum >= rules.ring_min_delta * 2 * met * scale;
      if (!flagged) continue;
      const inMean = inside / (2 * met);
      const outMean = outCount ? outSum / outCount : 0;
      pairs.push({ a, b, inMean, outMean, delta: inMean - outMean });
    }
  }
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x) => (parent[x] === x ? x : (parent[x] = find(parent[x])));
  for (const p of pairs) parent[find(p.a)] = find(p.b);
  const groups = new Map();
  for (const p of pairs) for (const x of [p.a, p.b]) {
    const r = find(x);
    if (!groups.has(r)) groups.set(r, new Set());
    groups.get(r).add(x);
  }
  const components = [...groups.values()].map((g) => [...g].sort((x, y) => x - y))
    .filter((c) => c.length >= rules.ring_min_size).sort((x, y) => x[0] - y[0]);
  return { pairs, components };
}

// ---- drawing -------------------------------------------------------------------------------

export function mount(root, meta) {
  const plaza = h("div", { class: "panel stage", "data-testid": "stage" });
  const meetings = h("div", { class: "panel" });
  const bug = h("div", { class: "panel" });
  const cards = h("div", { class: "panel" });
  const feed = h("ul", { class: "feed", "data-testid": "feed" });
  root.append(h("div", { class: "stage-grid" },
    h("div", { class: "grid" }, plaza, meetings),
    h("div", { class: "side" }, bug, cards, h("div", { class: "panel" }, h("h2", {}, "What happened"), feed))));
  const endcard = endCardSlot(plaza);
  return {
    update(v) {
      const stats = seatStats(v.step.state, meta.rules);
      const rings = detectRings(v.step.state.record, meta.rules);
      drawPlaza(plaza, v, stats, rings, meta);
      drawMeetings(meetings, v.step.state, meta);
      drawScorebug(bug, stats, meta);
      drawCards(cards, v.step.state, meta);
      renderFeed(feed, v.steps, v.index);
      endcard(v.step.final, () => endCard(v.step.state, stats, rings, meta));
    },
  };
}

function drawPlaza(el, v, stats, rings, meta) {
  const state = v.step.state;
  const W = Math.max(300, Math.min(el.clientWidth - 16 || 600, 980));
  const compact = W < 560;
  const H = compact ? Math.round(W * 1.35) : Math.min(660, Math.round(W * 0.66));
  const cx = W / 2, cy = H / 2;
  const R = compact ? 18 : 26;
  const rx = W / 2 - (compact ? 46 : 90), ry = H / 2 - (compact ? 62 : 84);
  const SEATS = meta.rules.seats;
  const pos = Array.from({ length: SEATS }, (_, i) => {
    const t = -Math.PI / 2 + (i * 2 * Math.PI) / SEATS;
    return { x: cx + rx * Math.cos(t), y: cy + ry * Math.sin(t), up: Math.sin(t) < -0.2 };
  });
  const svg = svgRoot(W, H, { "aria-label": "the plaza" });
  // the plaza floor
  svg.append(s("ellipse", { cx, cy, rx: rx + R + 16, ry: ry + R + 16, fill: "#141b2c", stroke: "#26304a", "stroke-width": 1.5 }),
    s("ellipse", { cx, cy, rx: rx * 0.5, ry: ry * 0.5, fill: "none", stroke: "#1f2840", "stroke-dasharray": "4 6" }));
  // red threads between flagged ring pairs
  for (const p of rings.pairs) {
    const a = pos[p.a], b = pos[p.b];
    svg.append(s("path", { d: `M${a.x},${a.y} Q${cx},${cy} ${b.x},${b.y}`, fill: "none", stroke: "#ff3b3b",
      "stroke-width": 3, "stroke-dasharray": "2 5", "stroke-linecap": "round", opacity: 0.9, "data-testid": "thread" }));
  }
  // boxes already taken: the centre title, the posts, and the per-seat payoff pills
  const taken = [{ x: cx, y: cy + 2, w: compact ? 96 : 150, h: compact ? 40 : 52 }];
  for (const p of pos) taken.push({ x: p.x, y: p.y, w: 2 * R + 16, h: 2 * R + 16 });
  const pills = [];
  for (const m of state.pairs) {
    if (!m.resolved) continue;
    for (const [seat, side, move, pay] of [[m.a, 0, m.moveA, m.payA], [m.b, 1, m.moveB, m.payB]]) {
      const p = pos[seat];
      const label = compact ? shortMove(m.subgame, side, move) : moveText(m.subgame, side, move);
      const w = Math.max(compact ? 34 : 56, label.length * (compact ? 6.4 : 7) + 14), hh = compact ? 30 : 38;
      // on the spoke from the centre to the post, as close to the post as it fits without
      // covering a post, the centre title or another pill (at 360 and 768 px the posts above
      // and below sit close to the centre, where a fixed spot overlapped them)
      let best = null;
      for (let k = 0.74; k >= 0.3; k -= 0.02) {
        const box = { x: cx + (p.x - cx) * k, y: cy + (p.y - cy) * k, w: w + 4, h: hh + 4 };
        const cost = taken.reduce((acc, o) => acc + overlap(box, o), 0);
        if (!best || cost < best.cost) best = { ...box, cost };
        if (cost === 0) break;
      }
      pills.push({ seat, x: best.x, y: best.y, w, h: hh, label, pay });
      taken.push({ x: best.x, y: best.y, w: w + 4, h: hh + 4 });
    }
  }
  // the round's meetings: a chord each, with a badge where it overlaps nothing
  const badges = [];
  for (const m of state.pairs) {
    const a = pos[m.a], b = pos[m.b];
    const mark = m.resolved ? markOf(m, meta.rules) : null;
    const colour = !mark ? "#3a4766" : mark === "handshake" ? "#47c98b" : mark === "coin" ? "#e3b341" : "#ef5b5b";
    svg.append(s("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: colour, "stroke-width": compact ? 2.5 : 3.5,
      opacity: mark ? 0.85 : 0.5, "stroke-dasharray": mark ? null : "6 6" }));
    badges.push(badge(m, mark, a, b, taken, compact));
  }
  for (const p of pills) {
    svg.append(s("g", { "data-testid": `pay-${p.seat}` },
      s("rect", { x: p.x - p.w / 2, y: p.y - p.h / 2, width: p.w, height: p.h, rx: 7, fill: "#0b1120", stroke: "#33405f" }),
      s("text", { x: p.x, y: p.y + (compact ? -1 : -2), "text-anchor": "middle", fill: "#f5c451", "font-size": compact ? 13 : 16, "font-weight": 800 }, `+${p.pay}`),
      s("text", { x: p.x, y: p.y + (compact ? 11 : 13), "text-anchor": "middle", fill: "#b9c2d6", "font-size": compact ? 10 : 11.5 }, p.label)));
  }
  for (const bd of badges) svg.append(bd);
  // the posts: avatar, halo ring, alias and policy name (above the posts of the upper half)
  for (let i = 0; i < SEATS; i++) {
    const { x, y, up } = pos[i];
    const st = stats[i];
    const circ = 2 * Math.PI * (R + 6);
    const line1 = up ? y - R - (compact ? 24 : 30) : y + R + (compact ? 20 : 24);
    const line2 = line1 + (compact ? 13 : 16);
    svg.append(s("g", { "data-testid": `post-${i}` },
      s("circle", { cx: x, cy: y, r: R + 6, fill: "none", stroke: "#2a3453", "stroke-width": 5 }),
      s("circle", { cx: x, cy: y, r: R + 6, fill: "none", stroke: "#f5c451", "stroke-width": 5,
        "stroke-dasharray": `${(st.halo * circ).toFixed(2)} ${circ.toFixed(2)}`, transform: `rotate(-90 ${x} ${y})` }),
      s("circle", { cx: x, cy: y, r: R, fill: seatColour(i), stroke: "#0e1320", "stroke-width": 2 }),
      s("text", { x, y: y + (compact ? 6 : 8), "text-anchor": "middle", "font-size": compact ? 17 : 22, "font-weight": 800, fill: "#0e1320" },
        (meta.aliases[i] || "?").slice(0, 1)),
      s("text", { x, y: line1, "text-anchor": "middle", "font-size": compact ? 12 : 14, "font-weight": 700, fill: "#e7ebf3" },
        clip(meta.aliases[i], 12)),
      s("text", { x, y: line2, "text-anchor": "middle", "font-size": compact ? 10 : 12, fill: "#8f9ab3" },
        clip(meta.names[i], compact ? 14 : 22)),
      s("title", {}, `${meta.aliases[i]} (${meta.names[i]}): median ${fmt(st.median)}, halo ${fmt(st.halo)}`)));
  }
  // centre: the round
  const played = new Set(state.record.map((m) => m.round)).size;
  svg.append(s("text", { x: cx, y: cy - 2, "text-anchor": "middle", "font-size": compact ? 15 : 22, "font-weight": 800, fill: "#e7ebf3" },
    v.step.round === null ? (state.done ? "Final" : "Plaza") : `Round ${v.step.round + 1}`),
  s("text", { x: cx, y: cy + (compact ? 14 : 18), "text-anchor": "middle", "font-size": compact ? 11 : 13, fill: "#8f9ab3" },
    `${played} of ${meta.rounds ?? "?"} played`));
  const old = el.querySelector("svg");
  if (old) old.replaceWith(svg); else el.prepend(svg);
}

function overlap(a, b) {
  const dx = Math.max(0, (a.w + b.w) / 2 - Math.abs(a.x - b.x));
  const dy = Math.max(0, (a.h + b.h) / 2 - Math.abs(a.y - b.y));
  return dx * dy;
}

/** A badge with the subgame and its mark, placed on the chord where it covers the least. */
function badge(m, mark, a, b, taken, compact) {
  const w = compact ? 50 : 60, hh = compact ? 26 : 32, size = compact ? 22 : 28;
  let best = null;
  for (const t of [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74]) {
    const box = { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, w: w + 4, h: hh + 4 };
    const cost = taken.reduce((acc, o) => acc + overlap(box, o), 0);
    if (!best || cost < best.cost) best = { ...box, cost };
    if (cost === 0) break;
  }
  taken.push(best);
  const { x, y } = best;
  const g = s("g", { "data-testid": "meeting", "data-mark": mark },
    s("rect", { x: x - w / 2, y: y - hh / 2, width: w, height: hh, rx: hh / 2, fill: "#1d2640", stroke: "#4a5a80" }),
    s("text", { x: x - w / 2 + 13, y: y + 5, "text-anchor": "middle", "font-size": compact ? 12 : 14, "font-weight": 800, fill: "#c9d2e6" }, m.subgame[0]),
    s("title", {}, `${SUBGAME_NAME[m.subgame]}${mark ? ` — ${MARK_WORD[mark]}` : ""}`));
  const icon = { handshake, knife, knives: twoKnives, coin: brokenCoin }[mark];
  if (icon) g.append(icon(x + w / 2 - size / 2 - 5, y, size));
  else g.append(s("text", { x: x + 10, y: y + 5, "text-anchor": "middle", fill: "#8f9ab3", "font-size": 14 }, "…"));
  return g;
}

function drawMeetings(el, state, meta) {
  clear(el).append(h("h2", {}, state.round === null ? "Meetings" : `Meetings · round ${state.round + 1}`));
  if (!state.pairs.length) { el.append(h("p", { class: "muted" }, "No round has opened yet.")); return; }
  const rows = state.pairs.map((m) => h("tr", { "data-testid": "meeting-row" },
    h("td", {}, SUBGAME_NAME[m.subgame]),
    h("td", {}, h("span", { class: "alias" }, meta.aliases[m.a]), m.resolved ? ` ${moveText(m.subgame, 0, m.moveA)}` : ""),
    h("td", {}, h("span", { class: "alias" }, meta.aliases[m.b]), m.resolved ? ` ${moveText(m.subgame, 1, m.moveB)}` : ""),
    h("td", { class: "num", style: { whiteSpace: "nowrap" } }, m.resolved ? `${m.payA} / ${m.payB}` : "…"),
    h("td", { class: "muted wide-only" }, m.resolved ? [MARK_WORD[markOf(m, meta.rules)], ...new Set([...m.flags.a, ...m.flags.b])].join(" · ") : "deciding")));
  el.append(h("div", { class: "scroll-x" }, h("table", { class: "data" },
    h("thead", {}, h("tr", {}, ["game", "first", "second", "pay", "outcome"].map((x) => h("th", { class: x === "pay" ? "num" : x === "outcome" ? "wide-only" : "" }, x)))),
    h("tbody", {}, rows))));
}

function drawScorebug(el, stats, meta) {
  const medians = stats.map((x) => x.median);
  const rk = ranks(medians);
  const rows = order(medians).map((i) => h("tr", { class: rk[i] === 1 ? "first" : "", "data-testid": `score-${i}` },
    h("td", { class: "num" }, rk[i]),
    h("td", {}, h("i", { class: "sw", style: { background: seatColour(i) } }), " ", h("span", { class: "alias" }, meta.aliases[i]),
      h("div", { class: "policy" }, meta.names[i])),
    h("td", { class: "num", "data-testid": `median-${i}` }, fmt(stats[i].median)),
    h("td", { class: "num" }, fmt(round(stats[i].mean, 2))),
    h("td", {}, h("div", { class: "bar", title: `halo ${fmt(stats[i].halo)}` }, h("i", { style: { width: `${(stats[i].halo * 100).toFixed(0)}%` } })))));
  clear(el).append(h("h2", {}, "Scorebug · median"),
    h("table", { class: "data scorebug" }, h("thead", {}, h("tr", {},
      h("th", { class: "num" }, "#"), h("th", {}, "alias"), h("th", { class: "num" }, "median"), h("th", { class: "num" }, "mean"), h("th", {}, "halo"))),
    h("tbody", {}, rows)));
}

function drawCards(el, state, meta) {
  clear(el).append(h("h2", {}, "Gossip board"));
  const last = state.board.slice(-BOARD_SHOWN).reverse();
  if (!last.length) { el.append(h("p", { class: "muted" }, "No notes yet.")); return; }
  el.append(h("div", { class: "cards", "data-testid": "gossip" }, last.map((n) => h("div", { class: "gcard" },
    h("div", { class: "hd" }, `R${n.round + 1} · ${meta.aliases[n.author]} on ${meta.aliases[n.subject]}`),
    h("div", { class: "tx" }, n.text)))));
}

function endCard(state, stats, rings, meta) {
  const medians = stats.map((x) => x.median);
  const best = order(medians);
  const rk = ranks(medians);
  const res = meta.results;
  const plural = rings.pairs.length === 1 ? "" : "s";
  return [h("h2", {}, "Final standings · median"),
    h("div", { class: "sub" }, `${state.played} rounds · ${state.reason} · ${rings.pairs.length} flagged ring pair${plural}` +
      (rings.components.length ? ` · rings: ${rings.components.map((c) => c.map((i) => meta.aliases[i]).join("–")).join(", ")}` : "")),
    podium(best.map((i) => ({ who: meta.aliases[i], policy: meta.names[i], value: fmt(stats[i].median), rank: rk[i] }))),
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "alias"),
      h("th", { class: "num" }, "median"), h("th", { class: "num" }, "mean"), h("th", { class: "num wide-only" }, "total"),
      h("th", { class: "num" }, "halo"))),
    h("tbody", {}, best.map((i) => h("tr", { "data-testid": `final-${i}` },
      h("td", { class: "num" }, rk[i]),
      h("td", {}, h("span", { class: "alias" }, meta.aliases[i]), h("div", { class: "policy" }, meta.names[i])),
      h("td", { class: "num", "data-field": "scores" }, fmt(stats[i].median)),
      h("td", { class: "num", "data-field": "mean" }, fmt(round(stats[i].mean, 4), 4)),
      h("td", { class: "num wide-only", "data-field": "total" }, fmt(stats[i].total)),
      h("td", { class: "num", "data-field": "halo" }, fmt(round(stats[i].halo, 4), 4)))))),
    res && res.scores && res.scores.some((x, i) => x !== stats[i].median)
      ? h("p", { class: "error" }, "The replay's stored results differ from the events shown.") : null];
}

// -- the Play page's seat renderer (web/static/js/seat.js) ---------------------------------------
// The view's rounds count from 0; people read them from 1. Moves are the rules' integers:
// DILEMMA 0 cooperate / 1 defect, TRUST coins sent or percent returned, ULTIMATUM offer or
// the minimum accepted.

const MEETING_WORDS = {
  "DILEMMA/EITHER": "a Dilemma",
  "TRUST/INVESTOR": "a Trust game, you as the investor",
  "TRUST/TRUSTEE": "a Trust game, you as the trustee",
  "ULTIMATUM/PROPOSER": "an Ultimatum, you as the proposer",
  "ULTIMATUM/RESPONDER": "an Ultimatum, you as the responder",
};

/** What the meeting asks, in the game's own terms (rules §4). */
function askText(m) {
  const r = m.rules ?? {};
  if (m.subgame === "DILEMMA") {
    const p = r.payoffs ?? {};
    const pay = (k) => (p[k] ?? []).join(" / ");
    return `Cooperate or defect, at the same time. Both cooperate: ${pay("cooperate/cooperate")}; both defect: ${pay("defect/defect")}; you defect on a cooperator: ${pay("defect/cooperate")} (you / them).`;
  }
  if (m.role === "INVESTOR") return `You hold ${r.investorEndowment} coins; send 0–${r.maxSend}. ${m.partner} receives ${r.multiplier}× what you send and returns the percent they committed to.`;
  if (m.role === "TRUSTEE") return `You hold ${r.trusteeEndowment} coins. Commit now to the percent (0–${r.maxReturnPercent}) of the ${r.multiplier}× ${m.partner} sends that you return.`;
  if (m.role === "PROPOSER") return `Offer ${m.partner} part of a ${r.pie}-coin pie (0–${r.maxOffer}); the deal stands if it reaches their minimum, else both get 0.`;
  return `${m.partner} offers part of a ${r.pie}-coin pie. Name the least you accept (0–${r.maxFloor}); below it, both get 0.`;
}

const rep = (x) => `halo ${fmt(x.halo, 2)}, ${x.kind} kind / ${x.harsh} harsh in ${x.meetings} meeting${x.meetings === 1 ? "" : "s"}, median ${fmt(x.median, 1)}`;

/** What a halo is, in words, with the conduct thresholds from the rules (ledger.md: conduct
 * and the halo): a newcomer reads "halo 0.5" and "kind / harsh" with no other key. */
function haloHelp(r) {
  const keys = ["neutral_halo", "trust_kind_send", "trust_kind_percent", "ultimatum_kind_offer", "ultimatum_kind_floor"];
  if (!keys.every((k) => Number.isFinite(r[k]))) return null; // no rules to say it with (never guessed)
  return h("p", { class: "muted", "data-testid": "halo-help" },
    `A halo is the share of a seat's moves that were kind (${fmt(r.neutral_halo, 2)} before its first meeting); everyone sees it, and it never changes a score. `
    + `Kind: cooperating; sending ${r.trust_kind_send} coins or more; returning ${r.trust_kind_percent} % or more; `
    + `offering ${r.ultimatum_kind_offer} coins or more; asking ${r.ultimatum_kind_floor} or less. Anything else is harsh.`);
}

/** Your meeting, partner, halo and record, the table, the gossip board and your memo. */
export function seatView(v, ctx) {
  const m = v.meeting ?? {};
  const partner = v.partner ?? {};
  const me = v.self ?? {};
  const past = (partner.history ?? []).slice(-6).map((x) => `round ${x.round + 1}: ${x.moveText} with ${x.partner} (${x.pay} coins)`);
  return [
    h("p", { "data-testid": "seat-now" }, `Round ${v.round + 1} of ${v.rounds}: you (${v.you}) meet ${m.partner} in ${MEETING_WORDS[`${m.subgame}/${m.role}`] ?? m.subgame}.`),
    h("p", {}, askText(m)),
    h("p", {}, `${m.partner}: ${rep(partner)}.`, past.length ? ` Lately: ${past.join("; ")}.` : " No meetings yet."),
    h("p", {}, `You: ${rep(me)}, ${me.total} coins in all.`),
    haloHelp(ctx?.rules ?? {}),
    v.memo ? h("p", {}, "Your memo: ", h("q", {}, v.memo)) : null,
    v.board?.length ? h("div", {}, h("h3", {}, "Gossip board"), h("ul", {}, v.board.map((n) => h("li", {}, `round ${n.round + 1}, ${n.author} on ${n.subject}: “${n.text}”`)))) : h("p", { class: "muted" }, "The gossip board is empty."),
    h("details", {}, h("summary", {}, "The table"), h("div", { class: "scroll-x" }, h("table", { class: "data" },
      h("thead", {}, h("tr", {}, ["alias", "halo", "kind", "harsh", "coins"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, (v.table ?? []).map((x) => h("tr", {}, h("td", {}, x.alias), h("td", { class: "num" }, fmt(x.halo, 2)),
        h("td", { class: "num" }, x.kind), h("td", { class: "num" }, x.harsh), h("td", { class: "num" }, x.total))))))),
  ];
}

/** The Play page's controls in the meeting's own terms, the note and the private memo. */
export function playControls(legal, v, rules = {}) {
  const m = v?.meeting ?? {};
  const lim = legal?.move ?? m.legal ?? { min: 0, max: 0 };
  const out = [];
  if (m.subgame === "DILEMMA") {
    out.push({ name: "move", kind: "choice", label: "Your choice", checked: 0,
      options: [{ value: 0, label: "Cooperate" }, { value: 1, label: "Defect" }] });
  } else {
    const label = { INVESTOR: "Coins to send", TRUSTEE: "Percent to return", PROPOSER: "Your offer (coins)", RESPONDER: "Minimum you accept (coins)" }[m.role] ?? "Move";
    out.push({ name: "move", kind: "int", min: lim.min, max: lim.max, label });
  }
  if (Number.isInteger(legal?.note)) {
    out.push({ name: "note", kind: "text", maxLength: legal.note, label: `Gossip note on the board (optional, ≤ ${legal.note} characters)`,
      hint: v?.noteTarget ? `It reviews ${v.noteTarget}, your last partner; everyone reads it.` : "Round 1 has no last partner: a note is discarded." });
  }
  if (Number.isInteger(legal?.memo)) {
    out.push({ name: "memo", kind: "text", maxLength: legal.memo, label: `Private memo (≤ ${legal.memo} characters)`,
      hint: "Only you read it, from next round on; left empty, your last memo stays." });
  }
  return out;
}

export function playTurnTitle(v) {
  return Number.isInteger(v?.round) ? `round ${v.round + 1} of ${v.rounds}` : "";
}

/** A move as something done (past tense), for "what happened". */
function didText(subgame, side, move) {
  if (subgame === "DILEMMA") return move === 0 ? "cooperated" : "defected";
  if (subgame === "TRUST") return side === 0 ? `sent ${move}` : `returned ${move}%`;
  return side === 0 ? `offered ${move}` : `asked for at least ${move}`;
}

/** Your meeting of the round in a sentence; other meetings are left to the Theater. */
export function seatHappened(ev, view, ctx) {
  if (ev.kind !== "meeting" || (ev.a !== ctx.seat && ev.b !== ctx.seat)) return null;
  const side = ev.a === ctx.seat ? 0 : 1;
  const other = ctx.aliases?.[side ? ev.a : ev.b] ?? "your partner";
  const mine = didText(ev.subgame, side, side ? ev.moveB : ev.moveA);
  const theirs = didText(ev.subgame, 1 - side, side ? ev.moveA : ev.moveB);
  const pay = side ? [ev.payB, ev.payA] : [ev.payA, ev.payB];
  const late = (side ? ev.timeoutsB : ev.timeoutsA) ? " (you ran out of time)" : "";
  return `Round ${ev.round + 1}: you ${mine}${late}, ${other} ${theirs}: you got ${pay[0]} coins, they got ${pay[1]}.`;
}

export function seatMove(action, v) {
  const m = v?.meeting ?? {};
  const side = m.role === "TRUSTEE" || m.role === "RESPONDER" ? 1 : 0;
  return `round ${(v?.round ?? 0) + 1}, with ${m.partner}: ${moveText(m.subgame, side, action.move)}${action.note ? `; note “${action.note}”` : ""}`;
}

/** The end banner: the score the rules rank by, and the coins and halo behind it. */
export function seatEnd(results, seat) {
  const scores = results?.scores;
  if (!Array.isArray(scores) || scores[seat] === undefined) return null;
  return { score: scores[seat], rank: 1 + scores.filter((x) => x > scores[seat]).length, of: scores.length,
    lines: [`${results.total?.[seat]} coins in ${results.meetings?.[seat]} meetings; halo ${fmt(results.halo?.[seat], 2)}.`] };
}
