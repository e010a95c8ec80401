// Icons drawn as SVG (the machines that render these pages have no emoji font). Each returns a
// <g> on a 24×24 grid, placed with translate/scale by the caller.

import { s } from "./util.js";

function group(x, y, size, ...children) {
  const k = size / 24;
  return s("g", { transform: `translate(${x - size / 2},${y - size / 2}) scale(${k})` }, ...children);
}

function knifeShape(transform) {
  return s("g", { transform },
    s("rect", { x: 1.5, y: 10.2, width: 7.5, height: 3.8, rx: 1.2, fill: "#7a4b2a", stroke: "#2b1a0e", "stroke-width": 0.8 }),
    s("path", { d: "M9 10 L22.5 11.2 Q21 14.3 9 14.2 Z", fill: "#dfe6ef", stroke: "#4b5568", "stroke-width": 0.8 }));
}

export function knife(x, y, size) {
  return group(x, y, size, knifeShape("rotate(-45 12 12)"));
}

export function twoKnives(x, y, size) {
  return group(x, y, size, knifeShape("rotate(-45 12 12)"), knifeShape("translate(24 0) scale(-1 1) rotate(-45 12 12)"));
}

export function handshake(x, y, size) {
  return group(x, y, size,
    s("rect", { x: 0.5, y: 8, width: 5, height: 8, rx: 1, fill: "#2f7d5b" }),
    s("rect", { x: 18.5, y: 8, width: 5, height: 8, rx: 1, fill: "#2f7d5b" }),
    s("path", { d: "M5 9.5 Q9 6.5 13 8.5 L19 8.5 L19 15.5 Q15 18.5 11 17 Q7 17 5 15 Z", fill: "#f2c9a0", stroke: "#8a5a35", "stroke-width": 0.9 }),
    s("path", { d: "M10 10 L15.5 12.2 M9 12.5 L14.5 14.5 M8.5 15 L12.5 16.3", stroke: "#8a5a35", "stroke-width": 0.9, fill: "none", "stroke-linecap": "round" }));
}

export function brokenCoin(x, y, size) {
  const crack = "L10.5 17.5 L13.2 13.6 L10.3 9.8 L13 6.2 Z";
  return group(x, y, size,
    s("path", { d: `M12 2.8 A9.2 9.2 0 0 0 12 21.2 ${crack}`, transform: "translate(-1.6 0.8)", fill: "#e3b341", stroke: "#7a5a12", "stroke-width": 1 }),
    s("path", { d: `M12 2.8 A9.2 9.2 0 0 1 12 21.2 ${crack}`, transform: "translate(1.6 -0.8)", fill: "#e3b341", stroke: "#7a5a12", "stroke-width": 1 }));
}

export function tombstone(x, y, size) {
  return group(x, y, size,
    s("path", { d: "M5 22 V10 A7 7 0 0 1 19 10 V22 Z", fill: "#8a93a6", stroke: "#3d4456", "stroke-width": 1 }),
    s("path", { d: "M12 8 V17 M8.5 11 H15.5", stroke: "#3d4456", "stroke-width": 1.8 }),
    s("rect", { x: 2.5, y: 21, width: 19, height: 2.5, rx: 1, fill: "#5b4a33" }));
}

export function clock(x, y, size, colour = "#f29a3a") {
  return group(x, y, size,
    s("circle", { cx: 12, cy: 12, r: 9.5, fill: "none", stroke: colour, "stroke-width": 2.4 }),
    s("path", { d: "M12 6.5 V12 L15.8 14.2", stroke: colour, "stroke-width": 2.4, fill: "none", "stroke-linecap": "round" }));
}

export function apple(x, y, size, colour = "#e5534b") {
  return group(x, y, size,
    s("path", { d: "M12 7 C7 4 2.5 8 4 14 C5.5 20 9 22 12 20.5 C15 22 18.5 20 20 14 C21.5 8 17 4 12 7 Z", fill: colour }),
    s("path", { d: "M12 7 Q12.5 3.5 15 2", stroke: "#6b4a2b", "stroke-width": 1.6, fill: "none" }));
}

export function mushroom(x, y, size, colour) {
  return group(x, y, size,
    s("path", { d: "M2 13 Q2 3 12 3 Q22 3 22 13 Z", fill: colour, stroke: "#0008", "stroke-width": 0.8 }),
    s("circle", { cx: 8, cy: 8, r: 1.6, fill: "#fff9" }), s("circle", { cx: 15, cy: 7, r: 1.3, fill: "#fff9" }),
    s("path", { d: "M9 13 H15 L14.3 21 Q12 22.5 9.7 21 Z", fill: "#efe6d2", stroke: "#0006", "stroke-width": 0.8 }));
}
