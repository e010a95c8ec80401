// Prisoner's Dilemma tables in the Theater: the pairing grid (one row per pairing, one column
// per round, each cell split into both seats' C/D), promises marked kept or broken, timeouts,
// the standings over time and an end card. Replay format `dilemma.replay.v1` (events wrapped
// as {audience, event}); live tables send the public events only (no promises until the end).

import { h, s, svgRoot, clear, fmt, order, ranks, seatColour, clip, round } from "../util.js";
import { renderFeed } from "../feed.js";
import { lineChart } from "../chart.js";
import { clock } from "../icons.js";
import { endCardSlot, podium } from "../endcard.js";
import { controlsOf } from "../controls.js";

export const id = "dilemma";
export const title = "Prisoner's Dilemma";

const COOPERATE = "cooperate";
// The promise rule (games/dilemma/promises.py, reported as results.promise_rule): a message is a
// promise when it has the word cooperate/cooperation (any case, whole word) or a standalone
// capital C; it is kept when its sender cooperated in that round (timeouts count as cooperate).
const WORD = "[\\p{L}\\p{N}_'’]";
const PROMISE_WORD = new RegExp(`(?<!${WORD})cooperat(?:e|ion)(?!${WORD})`, "iu");
const PROMISE_C = new RegExp(`(?<!${WORD})C(?!${WORD})`, "u");
export function isPromise(message) {
  return Boolean(message) && (PROMISE_WORD.test(message) || PROMISE_C.test(message));
}

export function metaFromReplay(doc) {
  return { aliases: doc.aliases, names: doc.policies, variant: doc.config?.variant,
    seed: doc.config?.seed, rounds: doc.config?.rounds_total, seats: doc.config?.seats,
    promises: doc.config?.promises, payoffs: doc.config?.payoffs, results: doc.results ?? null };
}

export function metaFromTable(t) {
  const seats = t.seats || [];
  const cfg = t.config || {};
  return { aliases: seats.map((x, i) => x?.alias ?? `Seat ${i}`),
    names: seats.map((x) => x?.policy ?? x?.policy_name ?? x?.name ?? ""),
    variant: t.variant, seed: cfg.seed, rounds: cfg.rounds_total, seats: cfg.seats ?? seats.length,
    promises: cfg.promises, payoffs: cfg.payoffs, results: null };
}

export function eventsOfReplay(doc) {
  return doc.events.map((e) => e.event ?? e);
}

const key = (a, b) => `${Math.min(a, b)}-${Math.max(a, b)}`;

export function initialState(meta) {
  const n = meta.seats ?? meta.aliases.length;
  const zeros = () => Array(n).fill(0);
  return { n, round: 0, played: 0, pairings: [], rows: {}, pending: {}, points: zeros(),
    history: [], choices: zeros(), coops: zeros(), timeouts: zeros(), made: zeros(), kept: zeros(),
    done: false, reason: null };
}

function ensurePairings(state) {
  if (state.pairings.length) return;
  for (let a = 0; a < state.n; a++) for (let b = a + 1; b < state.n; b++) state.pairings.push([a, b]);
}

export function opensStep(ev, state, meta) {
  if (ev.kind === "round_start") return { label: `Round ${ev.round} / ${meta.rounds ?? "?"}`, round: ev.round - 1, final: false };
  if (ev.kind === "tournament_end") return { label: "End", round: null, final: true };
  return null;
}

/** Each seat's points from a standings list ({seat, points, rank}), when it has them all. */
function takeStandings(state, standings) {
  if (!Array.isArray(standings) || standings.length !== state.n) return;
  for (const row of standings) {
    if (Number.isInteger(row?.seat) && row.seat >= 0 && row.seat < state.n && typeof row.points === "number") state.points[row.seat] = row.points;
  }
}

export function apply(state, ev, meta) {
  const A = (i) => meta.aliases[i] ?? `Seat ${i}`;
  switch (ev.kind) {
    case "tournament_start":
      state.pairings = ev.pairings.map((p) => [...p]);
      if (ev.aliases) meta.aliases = ev.aliases;
      if (ev.rounds) meta.rounds = ev.rounds;
      return [{ tag: "", text: [`${ev.seats} seats, ${ev.pairings.length} pairings, ${ev.rounds} rounds; promises ${ev.promises ? "on" : "off"}.`] }];
    case "round_start":
      ensurePairings(state);
      state.round = ev.round;
      state.pending = {};
      return [];
    case "message_private": {
      const k = key(...ev.pairing);
      (state.pending[k] ??= []).push({ from: ev.from, text: ev.message, promise: isPromise(ev.message) });
      return [];
    }
    case "choices_revealed": {
      ensurePairings(state);
      const [a, b] = ev.seats;
      const k = key(a, b);
      const msgs = state.pending[k] ?? [];
      const coop = (seat) => ev.choices[ev.seats.indexOf(seat)] === COOPERATE;
      const items = [];
      for (const m of msgs) {
        if (!m.promise) continue;
        m.kept = coop(m.from);
        state.made[m.from] += 1;
        if (m.kept) state.kept[m.from] += 1;
      }
      const cell = { round: ev.round, choices: ev.choices, points: ev.points, timeouts: ev.timeouts ?? [false, false], msgs };
      (state.rows[k] ??= []).push(cell);
      ev.seats.forEach((seat, i) => {
        state.points[seat] += ev.points[i];
        state.choices[seat] += 1;
        if (ev.choices[i] === COOPERATE) state.coops[seat] += 1;
        if (cell.timeouts[i]) state.timeouts[seat] += 1;
      });
      for (const m of msgs) {
        items.push({ tag: `R${ev.round}`, bad: m.promise && !m.kept, text: [{ b: A(m.from) }, " to ", A(m.from === a ? b : a), ": ",
          { q: m.text }, m.promise ? (m.kept ? " — promise kept" : " — promise broken") : ""] });
      }
      const word = (i) => (ev.choices[i] === COOPERATE ? "C" : "D") + (cell.timeouts[i] ? " (timeout)" : "");
      items.push({ tag: `R${ev.round}`, bad: ev.choices.includes("defect"), text: [{ b: A(a) }, ` ${word(0)} · `, { b: A(b) },
        ` ${word(1)} → ${ev.points[0]} / ${ev.points[1]}`] });
      return items;
    }
    case "tournament_standings":
      // the table's own totals: a spectator who joined late folded only the last events, so
      // the points are taken from here, and the chart keeps the table's round numbers (the
      // rounds before the first one seen stay blank)
      state.played = ev.round;
      takeStandings(state, ev.standings);
      while (state.history.length < ev.round - 1) state.history.push(null);
      state.history[ev.round - 1] = [...state.points];
      return [];
    case "spectator_state": // what a live spectator may see now (GET /tables/ID/spectator)
      takeStandings(state, ev.state?.standings);
      return [];
    case "tournament_end":
      state.done = true;
      state.reason = ev.reason;
      state.played = ev.rounds_played;
      return [{ tag: "end", text: [`The match ends (${ev.reason}) after ${ev.rounds_played} rounds.`] }];
    default:
      return [];
  }
}

export function seatStats(state) {
  return state.points.map((p, i) => ({ points: p, coop: state.choices[i] ? state.coops[i] / state.choices[i] : 0,
    timeouts: state.timeouts[i], made: state.made[i], kept: state.kept[i] }));
}

// ---- drawing -------------------------------------------------------------------------------

export function mount(root, meta) {
  const grid = h("div", { class: "panel stage", "data-testid": "stage" });
  const chart = h("div", { class: "panel" });
  const table = h("div", { class: "panel" });
  const feed = h("ul", { class: "feed", "data-testid": "feed" });
  root.append(h("div", { class: "stage-grid" },
    h("div", { class: "grid" }, grid, chart),
    h("div", { class: "side" }, table, h("div", { class: "panel" }, h("h2", {}, "What happened"), feed))));
  const endcard = endCardSlot(grid);
  return {
    update(v) {
      const st = v.step.state;
      const stats = seatStats(st);
      drawGrid(grid, v, meta);
      drawChart(chart, st, meta, v.step);
      drawTable(table, stats, meta);
      renderFeed(feed, v.steps, v.index);
      endcard(v.step.final, () => endCard(st, stats, meta));
    },
  };
}

function drawGrid(el, v, meta) {
  const st = v.step.state;
  const W = Math.max(300, (el.clientWidth || 600) - 16);
  const compact = W < 560;
  const labelW = compact ? 106 : 170; // at 360 px: an 8-letter name, then the points, apart
  const total = meta.rounds ?? Math.max(1, st.played);
  const fit = Math.floor((W - labelW - 6) / total);
  const cellW = Math.max(compact ? 16 : 22, Math.min(44, fit));
  const cols = Math.max(1, Math.min(total, Math.floor((W - labelW - 6) / cellW)));
  const current = v.step.round === null ? st.played : v.step.round + 1; // 1-based round on screen
  const first = Math.max(1, Math.min(current - cols + 1 + (current < total ? 1 : 0), total - cols + 1));
  const rowH = compact ? 30 : Math.min(44, Math.max(34, cellW + 4)), top = 24;
  const pairs = st.pairings.length ? st.pairings : [];
  const H = top + pairs.length * rowH + 6;
  const svg = svgRoot(W, H, { "aria-label": "pairing grid", "data-testid": "grid" });
  for (let c = 0; c < cols; c++) {
    const r = first + c;
    const x = labelW + c * cellW;
    if (r === current) svg.append(s("rect", { x: x - 1, y: 2, width: cellW, height: H - 4, rx: 4, fill: "#24365e" }));
    if (cols <= 30 || r % 5 === 0 || r === first) {
      svg.append(s("text", { x: x + cellW / 2 - 1, y: 16, "text-anchor": "middle", "font-size": 10.5, fill: r === current ? "#e7ebf3" : "#8f9ab3" }, r));
    }
  }
  pairs.forEach(([a, b], i) => {
    const y = top + i * rowH;
    const cells = st.rows[key(a, b)] ?? [];
    const pts = cells.reduce((acc, c) => [acc[0] + c.points[0], acc[1] + c.points[1]], [0, 0]);
    svg.append(
      s("rect", { x: 0, y: y + 1, width: W, height: rowH - 2, fill: i % 2 ? "#151c2c" : "#121827", rx: 4 }),
      s("circle", { cx: 8, cy: y + rowH * 0.3, r: 4, fill: seatColour(a) }),
      s("circle", { cx: 8, cy: y + rowH * 0.7, r: 4, fill: seatColour(b) }),
      s("text", { x: 16, y: y + rowH * 0.3 + 4, "font-size": compact ? 10.5 : 13, fill: "#e7ebf3", "font-weight": 600 }, clip(meta.aliases[a], compact ? 8 : 14)),
      s("text", { x: 16, y: y + rowH * 0.7 + 4, "font-size": compact ? 10.5 : 13, fill: "#e7ebf3", "font-weight": 600 }, clip(meta.aliases[b], compact ? 8 : 14)),
      s("text", { x: labelW - 8, y: y + rowH * 0.3 + 4, "text-anchor": "end", "font-size": 11, fill: "#f5c451" }, pts[0]),
      s("text", { x: labelW - 8, y: y + rowH * 0.7 + 4, "text-anchor": "end", "font-size": 11, fill: "#f5c451" }, pts[1]));
    for (const cell of cells) {
      if (cell.round < first || cell.round >= first + cols) continue;
      const x = labelW + (cell.round - first) * cellW;
      const hh = (rowH - 8) / 2;
      cell.choices.forEach((ch, k) => {
        const yy = y + 4 + k * hh;
        svg.append(s("rect", { x, y: yy, width: cellW - 3, height: hh - 1, rx: 2,
          fill: ch === COOPERATE ? "#47c98b" : "#ef5b5b", "stroke-dasharray": cell.timeouts[k] ? "2 2" : null,
          stroke: cell.timeouts[k] ? "#e7ebf3" : null, "data-testid": "cell", "data-choice": ch },
        s("title", {}, `round ${cell.round}: ${meta.aliases[[a, b][k]]} ${ch}${cell.timeouts[k] ? " (timeout)" : ""}`)));
        // the choice is a letter as well as a colour (C / D), dark on both fills (AA contrast)
        if (cell.timeouts[k]) svg.append(clock(x + (cellW - 3) / 2, yy + hh / 2 - 0.5, hh - 2, "#0e1320"));
        else svg.append(s("text", { x: x + (cellW - 3) / 2, y: yy + hh / 2 + Math.min(hh, 14) * 0.34, "text-anchor": "middle",
          "font-size": Math.min(hh, 14) - 1, "font-weight": 800, fill: "#0e1320", "data-testid": "cell-letter", "aria-hidden": "true" },
        ch === COOPERATE ? "C" : "D"));
      });
      // promises: a dot in the top-right corner of the sender's half, beside the C/D letter
      // (never over it); gold = kept, a ring with a slash = broken
      for (const m of cell.msgs) {
        if (!m.promise) continue;
        const k = m.from === a ? 0 : 1;
        const r = Math.min(compact ? 2.6 : 3.4, hh / 4);
        const cx = x + cellW - 3 - r - 1, cy = y + 4 + k * hh + r + 1;
        const d = r * 0.7;
        svg.append(m.kept
          ? s("circle", { cx, cy, r, fill: "#f5c451", stroke: "#0e1320", "stroke-width": 1, "data-testid": "kept" })
          : s("g", { "data-testid": "broken" }, s("circle", { cx, cy, r, fill: "#0e1320", stroke: "#ffd0d0", "stroke-width": 1.2 }),
            s("path", { d: `M${cx - d},${cy + d} L${cx + d},${cy - d}`, stroke: "#ffd0d0", "stroke-width": 1.2 })));
      }
    }
  });
  clear(el).append(h("h2", {}, `Pairing grid · round ${Math.min(current, total)} of ${total}`), svg,
    h("div", { class: "legend" },
      h("span", {}, h("i", { class: "sw letter", style: { background: "#47c98b" } }, "C"), "cooperate"),
      h("span", {}, h("i", { class: "sw letter", style: { background: "#ef5b5b" } }, "D"), "defect"),
      h("span", {}, h("i", { class: "sw", style: { background: "#f5c451", borderRadius: "50%" } }), "promise kept"),
      h("span", {}, h("i", { class: "sw", style: { border: "1.5px solid #ffd0d0", borderRadius: "50%" } }), "promise broken"),
      h("span", {}, h("i", { class: "sw", style: { background: "#47c98b", border: "1px dashed #e7ebf3" } }), "timeout: clock, recorded C")));
}

function drawChart(el, st, meta, step) {
  const n = st.n;
  const series = Array.from({ length: n }, (_, i) => ({ name: meta.aliases[i], colour: seatColour(i),
    values: st.history.map((row) => (row ? row[i] : null)) }));
  clear(el).append(h("h2", {}, "Standings over time"),
    lineChart({ series, width: Math.max(260, el.clientWidth - 28), height: 190, testid: "standings-chart",
      at: step.round === null ? null : step.round }));
}

/** A cooperation rate as people read it, the same on the standings and the end card. */
const percent = (x) => `${fmt(round(100 * x, 1), 1)}%`;

function drawTable(el, stats, meta) {
  const pts = stats.map((x) => x.points);
  const rk = ranks(pts);
  clear(el).append(h("h2", {}, "Standings"), h("div", { class: "scroll-x" }, h("table", { class: "data" },
    h("thead", {}, h("tr", {}, h("th", { class: "num", scope: "col", "aria-label": "rank" }, "#"), h("th", { scope: "col" }, "alias"),
      h("th", { class: "num", scope: "col" }, "points"), h("th", { class: "num", scope: "col" }, "C rate"),
      h("th", { class: "num", scope: "col", title: "promises kept of promises made" }, "promises kept"),
      h("th", { class: "num wide-only", scope: "col", title: "turns that ran out of time (recorded as cooperate)" }, "timeouts"))),
    h("tbody", {}, order(pts).map((i) => h("tr", { class: rk[i] === 1 ? "first" : "", "data-testid": `score-${i}` },
      h("td", { class: "num" }, rk[i]),
      h("td", {}, h("i", { class: "sw", style: { background: seatColour(i) } }), " ", h("span", { class: "alias" }, meta.aliases[i]),
        h("div", { class: "policy" }, meta.names[i])),
      h("td", { class: "num", "data-field": "points" }, stats[i].points),
      h("td", { class: "num" }, percent(stats[i].coop)),
      h("td", { class: "num" }, `${stats[i].kept}/${stats[i].made}`),
      h("td", { class: "num wide-only" }, stats[i].timeouts)))))));
}

function endCard(st, stats, meta) {
  const pts = stats.map((x) => x.points);
  const best = order(pts);
  const rk = ranks(pts);
  return [h("h2", {}, "Final standings"),
    h("div", { class: "sub" }, `${st.played} rounds · ${st.reason}`),
    podium(best.map((i) => ({ who: meta.aliases[i], policy: meta.names[i], value: stats[i].points, rank: rk[i] }))),
    h("table", { class: "data" }, h("thead", {}, h("tr", {}, h("th", { class: "num", "aria-label": "rank" }, "#"), h("th", {}, "alias"),
      h("th", { class: "num" }, "points"), h("th", { class: "num" }, "C rate"), h("th", { class: "num" }, "promises kept"),
      h("th", { class: "num wide-only" }, "timeouts"))),
    h("tbody", {}, best.map((i) => h("tr", { "data-testid": `final-${i}` },
      h("td", { class: "num", "data-field": "rank" }, rk[i]), h("td", { class: "alias" }, meta.aliases[i]),
      h("td", { class: "num", "data-field": "points" }, stats[i].points),
      h("td", { class: "num", "data-field": "cooperation_rate" }, percent(stats[i].coop)),
      h("td", { class: "num", "data-field": "promises" }, `${stats[i].kept}/${stats[i].made}`),
      h("td", { class: "num wide-only", "data-field": "timeouts" }, stats[i].timeouts)))))];
}

// -- the Play page's seat renderer (web/static/js/seat.js) ---------------------------------------
// `ctx`: {seat, alias, aliases (by seat), rules}. Rounds in the view count from 1.

const alias = (ctx, s) => ctx.aliases?.[s] ?? `seat ${s + 1}`;
const said = (m) => (m ? `“${m}”` : "nothing");
const ord = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th")}`;

/** One past meeting, C or D, with the promise mark beside (never over) the letter. */
function moveMark(letter, promise) {
  if (!promise || !isPromise(promise)) return letter;
  return `${letter} (promised, ${letter === "C" ? "kept" : "broken"})`;
}

/** Your points and place in words: a shared place is told as a tie, as the end banner tells
 * it ("2nd of 4, tied with 1 other"), and before anyone has scored there is no place at all
 * (everyone level at 0 is no lead). */
export function standingText(points, standings) {
  const all = standings ?? [];
  if (all.every((x) => x.points === 0) && points === 0) return `You have 0 points; nobody has scored yet`;
  const rank = 1 + all.filter((x) => x.points > points).length;
  const tied = all.filter((x) => x.points === points).length - 1;
  return `You have ${points} points, ${ord(rank)} of ${all.length}${tied > 0 ? `, tied with ${tied} other${tied === 1 ? "" : "s"}` : ""}`;
}

/** Who you face, what they said, your points and place, and your three pairings apart. */
export function seatView(v, ctx) {
  const me = v.your_seat ?? ctx.seat;
  const p = v.payoffs ?? {};
  const them = alias(ctx, v.opponent);
  const rows = (v.pairings ?? []).map((pr) => h("tr", { class: pr.opponent === v.opponent ? "now-row" : "" },
    h("td", {}, alias(ctx, pr.opponent), pr.opponent === v.opponent ? " (now)" : ""),
    h("td", {}, pr.history.length ? pr.history.map((x) => `${x.round}: you ${moveMark(x.you, x.your_promise)}, they ${moveMark(x.them, x.their_promise)}`).join(" · ") : "not met yet"),
    h("td", { class: "num" }, `${pr.your_points} – ${pr.their_points}`)));
  return [
    h("p", { "data-testid": "seat-now" }, `Round ${v.round} of ${v.rounds_total}: you face ${them}. `,
      v.you_move_first ? `You move first: ${them} sees your choice and message before deciding.` : `${them} moved first and wrote ${said(v.opponent_promise)}${isPromise(v.opponent_promise) ? " (a promise to cooperate)" : ""}.`),
    h("p", { "data-testid": "seat-standing" }, `${standingText(v.your_points, v.standings)} (you are ${alias(ctx, me)}).`),
    h("p", { class: "muted" }, `Both cooperate: ${p.reward} each. Both defect: ${p.punishment} each. One defects on a cooperator: ${p.temptation} to the defector, ${p.sucker} to the cooperator.`),
    h("div", { class: "scroll-x" }, h("table", { class: "data" }, h("caption", { class: "sr-only" }, "Your pairings"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "opponent"), h("th", { scope: "col" }, "rounds (C cooperate, D defect)"), h("th", { scope: "col", class: "num" }, "points you – them"))),
      h("tbody", {}, rows))),
  ];
}

/** Your own meetings, told in a sentence each; the others' meetings only as a count. */
export function seatHappened(ev, view, ctx) {
  if (ev.kind !== "choices_revealed" || !Array.isArray(ev.seats)) return null;
  const k = ev.seats.indexOf(ctx.seat);
  if (k < 0) return null;
  const o = 1 - k;
  const word = (c) => (c === COOPERATE ? "cooperated" : "defected");
  const late = ev.timeouts?.[k] ? " (you ran out of time)" : "";
  return `Round ${ev.round}: you ${word(ev.choices[k])}${late}, ${alias(ctx, ev.seats[o])} ${word(ev.choices[o])}: you got ${ev.points[k]}, they got ${ev.points[o]}.`;
}

/** The move just sent, in words. */
export function seatMove(action, view, ctx) {
  const who = view ? `round ${view.round}, with ${alias(ctx, view.opponent)}` : "";
  return `${who}: ${action.action === COOPERATE ? "cooperate" : "defect"}${action.message ? `, saying “${action.message}”` : ""}`;
}

/** The end banner's score and rank: points, competition rank (results.seats). */
export function seatEnd(results, seat) {
  const mine = results?.seats?.[seat];
  if (!mine) return null;
  return { score: mine.points, rank: mine.rank, of: results.seats.length,
    lines: [`You cooperated in ${Math.round(100 * (mine.cooperation_rate ?? 0))}% of your meetings; promises made ${mine.promises_made}, kept ${mine.promises_kept}.`] };
}

/** The Play page's turn heading: the round (from 1 in the view) and who you face — a round
 * has a turn per pairing, so the round alone does not tell them apart. */
export function playTurnTitle(v, ctx = {}) {
  if (!Number.isInteger(v?.round)) return "";
  return `round ${v.round} of ${v.rounds_total}${Number.isInteger(v.opponent) ? `, facing ${alias(ctx, v.opponent)}` : ""}`;
}

/** The Play page's controls: cooperate or defect, and a message the opponent reads. */
export function playControls(legal, v, rules = {}) {
  const out = controlsOf(legal);
  for (const c of out) {
    if (c.name === "action") {
      c.label = "Your choice";
      c.options = c.choices.map((x) => ({ value: x, label: x === COOPERATE ? "Cooperate (C)" : "Defect (D)" }));
    } else if (c.kind === "text") {
      c.label = `Message to your opponent (optional, ≤ ${c.maxLength} characters)`;
      c.hint = "A message with the word “cooperate” or a capital C counts as a promise; it is kept if you cooperate this round.";
    }
  }
  return out;
}
