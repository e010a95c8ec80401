// The generic renderer: the Theater for any game whose descriptor has no viewer module
// (`viewer: null` in GET /api/games). It knows no rules, only the shape every game's events
// share: a `kind`, often a round (`round` or `r`), often a seat (`seat`, `slot` or `alias`),
// and sometimes per-seat scores (`scores`, or `points` next to `seats`). It draws a timeline of
// the rounds, the scores, and one feed per seat (events naming the seat, and each seat's entry
// of an event's per-seat lists); the end card comes from the replay's results.

import { h, clear, fmt, order, ranks, seatColour } from "./util.js";
import { renderFeed } from "./feed.js";
import { lineChart } from "./chart.js";
import { endCardSlot, podium } from "./endcard.js";

const END_KINDS = /(^|_)(end|ended|finished|over)$/;
const START_KINDS = /^(round|turn)_(start|open|begin)$/;

function roundOf(ev) {
  const r = ev.round ?? ev.r;
  return Number.isInteger(r) ? r : null;
}

function numbers(list, n) {
  return Array.isArray(list) && list.length === n && list.every((x) => typeof x === "number") ? list : null;
}

/** Scores per seat in a results document, whatever its shape (null when there are none). */
export function scoresOfResults(results, n) {
  if (!results) return null;
  for (const key of ["scores", "points", "totals", "payoffs"]) {
    const v = numbers(results[key], n);
    if (v) return v;
  }
  if (Array.isArray(results.seats) && results.seats.length === n) {
    const v = results.seats.map((x) => x?.score ?? x?.points ?? x?.total);
    if (v.every((x) => typeof x === "number")) return v;
  }
  return null;
}

/** One line of text for an event: its kind and its small fields. */
function describe(ev, aliasOf) {
  const parts = [];
  for (const [k, v] of Object.entries(ev)) {
    if (k === "kind" || k === "round" || k === "r") continue;
    if (k === "seat" || k === "slot") { parts.push(`${aliasOf(v)}`); continue; }
    if (v === null || typeof v === "object") {
      if (Array.isArray(v) && v.length <= 12 && v.every((x) => typeof x !== "object")) parts.push(`${k} ${v.join(" / ")}`);
      continue;
    }
    parts.push(`${k} ${typeof v === "number" ? fmt(v, 3) : v}`);
  }
  return `${ev.kind.replaceAll("_", " ")}${parts.length ? ": " + parts.join(", ") : ""}`;
}

export function genericViewer(desc) {
  const title = desc.title ?? desc.name;

  function metaFromReplay(doc) {
    const aliases = doc.aliases ?? doc.names ?? doc.seats?.map?.((x, i) => x?.alias ?? `Seat ${i}`) ?? [];
    return { aliases: [...aliases], names: doc.policies ?? doc.policy_names ?? aliases.map(() => ""),
      variant: doc.variant ?? doc.config?.variant, seed: doc.seed ?? doc.config?.seed,
      rounds: doc.rounds ?? doc.config?.rounds ?? null, results: doc.results ?? null };
  }

  function metaFromTable(t) {
    const seats = t.seats || [];
    return { aliases: seats.map((x, i) => x?.alias ?? `Seat ${i}`), names: seats.map(() => ""),
      variant: t.variant, seed: t.config?.seed, rounds: t.config?.rounds ?? null, results: null };
  }

  function eventsOfReplay(doc) {
    return (doc.events || []).map((e) => e.event ?? e);
  }

  function initialState(meta) {
    const n = meta.aliases.length;
    return { n, round: null, played: 0, scores: Array(n).fill(0), history: [], historyRound: null,
      perSeat: Array.from({ length: n }, () => []), events: 0, done: false, reason: null };
  }

  function opensStep(ev, state, meta) {
    if (END_KINDS.test(ev.kind) && !ev.kind.startsWith("round")) return { label: "End", round: null, final: true };
    const r = roundOf(ev);
    if (START_KINDS.test(ev.kind) || (r !== null && r !== state.round && !ev.kind.startsWith("episode"))) {
      const shown = r ?? (state.round ?? -1) + 1;
      return { label: `Round ${shown + 1}${meta.rounds ? ` / ${meta.rounds}` : ""}`, round: shown, final: false };
    }
    return null;
  }

  function seatOf(ev, meta) {
    if (Number.isInteger(ev.seat)) return ev.seat;
    if (Number.isInteger(ev.slot)) return ev.slot;
    if (typeof ev.alias === "string") {
      const i = meta.aliases.indexOf(ev.alias);
      return i < 0 ? null : i;
    }
    return null;
  }

  function apply(state, ev, meta) {
    state.events += 1;
    const r = roundOf(ev);
    if (r !== null && r !== state.round) state.played += 1;  // rounds are the events' round numbers
    if (r !== null) state.round = r;
    const ending = END_KINDS.test(ev.kind) && !ev.kind.startsWith("round");
    if (Array.isArray(ev.aliases) && ev.aliases.length === state.n) meta.aliases = ev.aliases;
    if (ev.kind === "spectator_state") {
      const v = scoresOfResults(ev.state, state.n);
      if (v) state.scores = [...v];
      return [];
    }
    const scores = numbers(ev.scores, state.n);
    if (scores) {
      state.scores = [...scores];
      // One point per round on the chart: a later event of the same round replaces it, and the
      // end's final scores are no round of their own.
      if (r !== null && r === state.historyRound) state.history[state.history.length - 1] = [...scores];
      else if (!ending || !state.history.length) state.history.push([...scores]);
      if (r !== null) state.historyRound = r;
    } else if (Array.isArray(ev.seats) && Array.isArray(ev.points) && ev.seats.length === ev.points.length) {
      ev.seats.forEach((seat, k) => { state.scores[seat] += ev.points[k]; });
    }
    if (ending) {
      state.done = true;
      state.reason = ev.reason ?? null;
    }
    const aliasOf = (i) => meta.aliases[i] ?? `Seat ${i}`;
    const tag = r === null ? "" : `R${r + 1}`;
    const seat = seatOf(ev, meta);
    const item = { tag, text: seat === null ? [describe(ev, aliasOf)] : [{ b: aliasOf(seat) }, " ", describe(ev, aliasOf)] };
    if (seat !== null) state.perSeat[seat] = [...state.perSeat[seat], { round: r, text: describe(ev, aliasOf) }].slice(-6);
    else { // an event's per-seat lists (one entry per seat: contributions, payoffs, scores…) are each seat's part of it
      const lists = Object.entries(ev).filter(([k, v]) => k !== "aliases" && Array.isArray(v) && v.length === state.n
        && v.every((x) => x !== null && typeof x !== "object"));
      if (lists.length) {
        const kind = ev.kind.replaceAll("_", " ");
        state.perSeat = state.perSeat.map((feed, i) => [...feed, { round: r,
          text: `${kind}: ${lists.map(([k, v]) => `${k} ${typeof v[i] === "number" ? fmt(v[i], 3) : v[i]}`).join(", ")}` }].slice(-6));
      }
    }
    return [item];
  }

  function mount(root, meta) {
    const timeline = h("div", { class: "panel stage", "data-testid": "stage" });
    const chart = h("div", { class: "panel" });
    const seats = h("div", { class: "panel" });
    const table = h("div", { class: "panel" });
    const feed = h("ul", { class: "feed", "data-testid": "feed" });
    root.append(h("div", { class: "stage-grid" },
      h("div", { class: "grid" }, timeline, seats, chart),
      h("div", { class: "side" }, table, h("div", { class: "panel" }, h("h2", {}, "What happened"), feed))));
    const endcard = endCardSlot(timeline);
    return {
      update(v) {
        const st = v.step.state;
        drawTimeline(timeline, v, meta);
        drawSeats(seats, st, meta);
        drawChart(chart, st, meta, v.step);
        drawScores(table, st, meta);
        renderFeed(feed, v.steps, v.index);
        endcard(v.step.final, () => endCard(st, meta));
      },
    };
  }

  function drawTimeline(el, v, meta) {
    const rounds = v.steps.filter((x) => x.round !== null);
    const total = meta.rounds ?? rounds.length;
    clear(el).append(h("h2", {}, `Timeline · ${v.step.label}`),
      h("ol", { class: "timeline", "data-testid": "timeline", "aria-label": "rounds" },
        Array.from({ length: Math.max(total, rounds.length) }, (_, k) => {
          const at = v.steps.findIndex((x) => x.round === k);
          const state = at < 0 || at > v.index ? "todo" : at === v.index ? "now" : "done";
          const mark = { todo: "○", now: "◉", done: "●" }[state];
          return h("li", { class: state, "data-testid": `round-${k}`, title: `round ${k + 1}: ${state}` }, `${mark} ${k + 1}`);
        })));
  }

  function drawSeats(el, st, meta) {
    clear(el).append(h("h2", {}, "Each seat"), h("div", { class: "seat-feeds" },
      meta.aliases.map((a, i) => h("section", { class: "seat-feed", "data-testid": `seat-feed-${i}` },
        h("h3", {}, h("i", { class: "sw", style: { background: seatColour(i) } }), " ", a),
        st.perSeat[i].length ? h("ul", {}, st.perSeat[i].map((x) => h("li", {}, `${x.round === null ? "" : `R${x.round + 1} · `}${x.text}`)))
          : h("p", { class: "muted" }, "Nothing yet.")))));
  }

  function drawChart(el, st, meta, step) {
    if (!st.history.length) { clear(el); el.hidden = true; return; }
    el.hidden = false;
    const series = meta.aliases.map((a, i) => ({ name: a, colour: seatColour(i), values: st.history.map((row) => row[i]) }));
    clear(el).append(h("h2", {}, "Scores over the rounds"),
      lineChart({ series, width: Math.max(260, el.clientWidth - 28), height: 170, testid: "scores-chart",
        at: step.round === null ? null : st.history.length - 1 }));
  }

  function drawScores(el, st, meta) {
    const rk = ranks(st.scores);
    clear(el).append(h("h2", {}, "Scores"), h("table", { class: "data" },
      h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "alias"), h("th", { class: "num" }, "score"))),
      h("tbody", {}, order(st.scores).map((i) => h("tr", { "data-testid": `score-${i}` },
        h("td", { class: "num" }, rk[i]),
        h("td", {}, h("span", { class: "alias" }, meta.aliases[i]), h("div", { class: "policy" }, meta.names[i] ?? "")),
        h("td", { class: "num", "data-field": "score" }, fmt(st.scores[i], 3)))))));
  }

  function endCard(st, meta) {
    const scores = scoresOfResults(meta.results, st.n) ?? st.scores;
    const best = order(scores);
    const rk = ranks(scores);
    return [h("h2", {}, "Final scores"),
      h("div", { class: "sub", "data-testid": "rounds-played" },
        `${st.played || meta.rounds || 0} rounds${st.reason ? ` · ${st.reason}` : ""}`),
      podium(best.map((i) => ({ who: meta.aliases[i], policy: meta.names[i] ?? "", value: fmt(scores[i], 3), rank: rk[i] }))),
      h("table", { class: "data" }, h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", {}, "alias"), h("th", { class: "num" }, "score"))),
        h("tbody", {}, best.map((i) => h("tr", { "data-testid": `final-${i}` },
          h("td", { class: "num", "data-field": "rank" }, rk[i]), h("td", { class: "alias" }, meta.aliases[i]),
          h("td", { class: "num", "data-field": "score" }, fmt(scores[i], 3))))))];
  }

  return { id: desc.name, title, metaFromReplay, metaFromTable, eventsOfReplay, initialState, opensStep, apply, mount };
}
