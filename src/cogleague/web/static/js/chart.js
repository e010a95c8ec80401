// A small SVG line chart: several series over rounds, axes, a legend and a marker at the round
// on screen. Sized in CSS pixels so its text stays legible on a phone.

import { s, h, svgRoot } from "./util.js";

/**
 * @param {{series: {name: string, colour: string, values: (number|null)[], dash?: string}[],
 *          width: number, height?: number, at?: number, yMin?: number, yMax?: number,
 *          xLabel?: string, testid?: string}} o
 */
/** Tick values at a round step (1, 2 or 5 × 10^k) covering [lo, hi], and the decimals that
 *  print each of them exactly, so a label always names the value of its gridline. */
export function niceTicks(lo, hi, count = 4) {
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw - 1e-12);
  const first = Math.floor(lo / step + 1e-9) * step, values = [];
  for (let v = first; v <= hi + step * 1e-9; v += step) values.push(Number(v.toFixed(12)));
  if (values[values.length - 1] < hi) values.push(Number((values[values.length - 1] + step).toFixed(12)));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  return { values, step, decimals };
}

export function lineChart(o) {
  const W = Math.max(240, o.width), H = o.height ?? 170;
  const L = 38, R = 10, T = 10, B = 24;
  const n = Math.max(1, ...o.series.map((x) => x.values.length));
  const all = o.series.flatMap((x) => x.values).filter((v) => v !== null && v !== undefined);
  let lo = o.yMin ?? Math.min(0, ...all), hi = o.yMax ?? Math.max(1, ...all);
  if (hi === lo) hi = lo + 1;
  const yt = niceTicks(lo, hi, 4);
  lo = Math.min(lo, yt.values[0]);
  hi = Math.max(hi, yt.values[yt.values.length - 1]);
  const X = (i) => L + (n <= 1 ? 0 : (i * (W - L - R)) / (n - 1));
  const Y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const svg = svgRoot(W, H, { class: "chart", "data-testid": o.testid,
    "aria-label": o.label ?? `line chart over the rounds: ${o.series.map((x) => x.name).join(", ")}` });
  for (const v of yt.values) {
    svg.append(s("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#26304a" }),
      s("text", { x: L - 5, y: Y(v) + 4, "text-anchor": "end", fill: "#a9b3c9", "font-size": 11, "data-tick": v },
        v.toFixed(yt.decimals)));
  }
  const step = Math.max(1, Math.ceil(n / 10));
  for (let i = 0; i < n; i += step) {
    svg.append(s("text", { x: X(i), y: H - 6, "text-anchor": "middle", fill: "#a9b3c9", "font-size": 11, "data-round": i + 1 }, i + 1));
  }
  if (o.at !== undefined && o.at !== null && o.at >= 0) {
    svg.append(s("line", { x1: X(o.at), x2: X(o.at), y1: T, y2: H - B, stroke: "#6ea8ff", "stroke-dasharray": "3 3" }));
  }
  for (const ser of o.series) {
    let d = "";
    ser.values.forEach((v, i) => {
      if (v === null || v === undefined) return;
      d += `${d ? "L" : "M"}${X(i).toFixed(1)},${Y(v).toFixed(1)}`;
    });
    if (d) svg.append(s("path", { d, fill: "none", stroke: ser.colour, "stroke-width": 2.2,
      "stroke-dasharray": ser.dash, "stroke-linejoin": "round" }));
    const lastI = ser.values.length - 1;
    if (lastI >= 0 && ser.values[lastI] !== null) {
      svg.append(s("circle", { cx: X(lastI), cy: Y(ser.values[lastI]), r: 3, fill: ser.colour }));
    }
  }
  const legend = h("div", { class: "legend" }, o.series.map((ser) =>
    h("span", {}, h("i", { class: "sw", style: { background: ser.colour } }), ser.name)));
  return h("div", {}, svg, legend);
}
