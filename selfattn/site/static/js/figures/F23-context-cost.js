// F23: drag the context length along a log axis and watch the bill: one head's n×n scores,
// every head's, and the tokens themselves, in fp16 bytes, with one head's multiply-adds.
// Every number comes from cost.js, the mirror of selfattn/cost.py (GPT-2 small).

import { figure, readout, slider, t, html, clampNumber } from "../figure.js";
import { svg } from "../kit/plane.js";
import { grouped } from "../kit/format.js";
import { fixed, scientific, size } from "../kit/format.js";
import { GPT2_SMALL, allHeadsScoreBytes, dHead, headMacs, scoreBytes, tokenBytes } from "../cost.js";

const SHORTEST = 4, LONGEST = 17; // log₂ n: 16 … 131,072 tokens
const BYTES = [8, 43]; // log₂ bytes on the chart: 256 bytes … 8 TiB

/** Bytes with one decimal below 100 of a unit and none from 100 up: 4.5 TiB, 288 MiB. */
function roundedSize(bytes) {
  let v = bytes;
  while (v >= 1024) v /= 1024;
  return size(bytes, v >= 100 ? 0 : 1);
}

/** How many times the scores outweigh the tokens: 171× (whole, ties to even), or 1.33× below ten. */
function times(ratio) {
  return `${ratio >= 10 ? grouped(Number(fixed(ratio, 0))) : fixed(ratio, 2)}×`;
}

/** Multiply-adds in full while they are short, 2.2 × 10¹² beyond a billion. */
function count(x) {
  return x < 1e9 ? grouped(x) : scientific(x, 2);
}

export default function (el) {
  const model = GPT2_SMALL, d = dHead(model);
  const width = 360, height = 250, left = 54, right = 10, top = 12, bottom = 34;
  const x = (log2n) => left + ((log2n - SHORTEST) / (LONGEST - SHORTEST)) * (width - left - right);
  const y = (log2b) => top + ((BYTES[1] - log2b) / (BYTES[1] - BYTES[0])) * (height - top - bottom);
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "chart cost-chart", role: "img",
    "aria-label": t({ zh: "字节数随上下文长度变化，两条轴都是对数刻度", en: "Bytes against context length, both axes logarithmic" }),
  });
  for (const [power, unit] of [[10, "1 KiB"], [20, "1 MiB"], [30, "1 GiB"], [40, "1 TiB"]]) {
    svg("line", { x1: left, x2: width - right, y1: y(power), y2: y(power), class: "gridline" }, chart);
    svg("text", { x: left - 6, y: y(power) + 4, class: "tick end" }, chart).textContent = unit;
  }
  for (const power of [4, 7, 10, 13, 17]) {
    svg("line", { x1: x(power), x2: x(power), y1: top, y2: height - bottom, class: "gridline" }, chart);
    const anchor = power === LONGEST ? "end" : power === SHORTEST ? "start" : "";
    svg("text", { x: x(power), y: height - bottom + 16, class: `tick ${anchor}` }, chart).textContent = grouped(2 ** power);
  }
  svg("text", { x: (left + width - right) / 2, y: height - 2, class: "axis-title" }, chart).textContent = t({ zh: "上下文长度 n（token）", en: "context length n (tokens)" });
  const series = [
    { cls: "all-heads", bytes: (n) => allHeadsScoreBytes(n, model), label: t({ zh: `全部 ${model.layers * model.heads} 个头`, en: `all ${model.layers * model.heads} heads` }) },
    { cls: "one-head", bytes: (n) => scoreBytes(n, model), label: t({ zh: "一个头的分数", en: "one head's scores" }) },
    { cls: "tokens", bytes: (n) => tokenBytes(n, model), label: t({ zh: "token 本身", en: "the tokens" }) },
  ].map((s) => {
    const points = [];
    for (let k = SHORTEST; k <= LONGEST + 1e-9; k += 0.25) points.push(`${x(k)},${y(Math.log2(s.bytes(2 ** k)))}`);
    svg("polyline", { points: points.join(" "), class: `cost-line ${s.cls}` }, chart);
    return { ...s, dot: null };
  });
  // the key sits in the empty top-left corner, above every line
  series.forEach((s, k) => {
    const row = top + 16 + k * 17;
    svg("line", { x1: left + 10, x2: left + 32, y1: row - 4, y2: row - 4, class: `cost-line ${s.cls}` }, chart);
    svg("text", { x: left + 38, y: row, class: `line-label ${s.cls}` }, chart).textContent = s.label;
  });
  const marker = svg("line", { y1: top, y2: height - bottom, class: "marker" }, chart);
  for (const s of series) s.dot = svg("circle", { r: 5, class: `cost-dot ${s.cls}` }, chart);

  const control = slider({
    label: t({ zh: "上下文长度 n", en: "Context length n" }), min: SHORTEST, max: LONGEST, step: 0.25, name: "n",
    onInput: (log2n) => fig.set({ n: Math.round(2 ** log2n) }),
  });
  const tokens = readout("n", "n");
  const head = readout("head", t({ zh: "一个头的分数", en: "one head's scores" }));
  head.el.querySelector("output").dataset.key = ""; // the one read-out a screen reader hears change
  const all = readout("all", t({ zh: `${model.layers} 层 × ${model.heads} 头`, en: `${model.layers} layers × ${model.heads} heads` }));
  const own = readout("tokens", t({ zh: "token 本身", en: "the tokens" }));
  const ratio = readout("ratio", t({ zh: "分数 ÷ token", en: "scores ÷ tokens" }));
  const macs = readout("macs", t({ zh: `一个头的乘加（2·n²·${d}）`, en: `one head's multiply-adds (2·n²·${d})` }));
  el.querySelector(".stage").append(
    chart,
    html("div", { class: "panel" },
      control.el,
      html("div", { class: "readouts wide" }, tokens.el, head.el, all.el, own.el, ratio.el, macs.el),
      html("p", { class: "figure-note" }, t({
        zh: `GPT-2 small：d_model = ${model.dModel}，每头 d = ${d}，fp16 每个数 ${model.bytesPerNumber} 字节。`,
        en: `GPT-2 small: d_model = ${model.dModel}, d = ${d} per head, fp16 at ${model.bytesPerNumber} bytes a number.`,
      })),
    ),
  );

  const fig = figure(el, {
    state: { n: 1024 },
    clamp: (s) => ({ n: Math.round(clampNumber(s.n, 2 ** SHORTEST, 2 ** LONGEST, 1024)) }),
    draw({ n }) {
      control.show(Math.log2(n), grouped(n));
      const at = Math.log2(n);
      marker.setAttribute("x1", x(at));
      marker.setAttribute("x2", x(at));
      for (const s of series) {
        s.dot.setAttribute("cx", x(at));
        s.dot.setAttribute("cy", y(Math.log2(s.bytes(n))));
      }
      tokens.show(grouped(n));
      head.show(size(scoreBytes(n, model)));
      all.show(roundedSize(allHeadsScoreBytes(n, model)));
      own.show(size(tokenBytes(n, model)));
      ratio.show(times(scoreBytes(n, model) / tokenBytes(n, model)));
      macs.show(count(headMacs(n, d)));
    },
  });
}
