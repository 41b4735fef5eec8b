// F06: walk the query along the sentence; its six raw scores stand as one row of bars, on
// one scale for every row, with every other row's score for the same key a short dash in the
// bar's slot: raw scores have no range of their own (cat·cat climbs to 3, ate·cat sinks under
// zero), so a row reads only against the others. F03 drew how one score is made; this draws
// where all thirty-six fall.

import { argmax } from "../attention.js";
import { figure } from "../figure.js";
import { t } from "../i18n.js";
import { makeBars } from "../kit/bars.js";
import { ticks } from "../kit/chart.js";
import { stepper, tokenIndex } from "../kit/controls.js";
import { svg } from "../kit/dom.js";
import { fixed } from "../kit/format.js";
import { setSvg } from "../kit/notation.js";
import { stage } from "../kit/stage.js";

export default function (el, head) {
  const { tokens } = head;
  const { R } = head.run();
  const first = head.index("it");
  const all = R.flat();
  // headroom over the tallest, so its number clears the title's subscript (q_cat), and room
  // under the lowest for the name of the dashed line there (on a phone too)
  const domain = [Math.min(0, ...all) * 1.5, Math.max(0, ...all) * 1.06];
  const { picture, controls, readouts } = stage(el);
  const bars = makeBars(picture, {
    labels: [...tokens],
    domain,
    // taller on a phone, where the dashed lowest line ran right under the key names
    height: matchMedia("(max-width: 1099px)").matches ? 300 : 220,
    name: "score",
    ticks: ticks(domain[0], domain[1], 4),
    title: " ", // written per row: the query the stepper walks
    label: t({ zh: "一行原始分数", en: "One row of raw scores" }),
  });
  // the chart is headed by the query it shows, so the row reads as q_it·k without the stepper
  const heading = /** @type {SVGTextElement} */ (bars.root.querySelector(".chart-title"));
  const step = stepper(controls, {
    label: t({ zh: "查询的 token", en: "Query token" }),
    items: [...tokens],
    onPick: (token) => fig.set({ token }),
  });
  // the highest and the lowest raw score of all six rows, dashed across the chart: what a raw
  // score can reach; the row whose own bar is one hides that line (its bar says it)
  const { layers, box } = bars.frame;
  const extremes = [Math.max(...all), Math.min(...all)].map((v, low) => {
    const at = all.indexOf(v),
      i = Math.floor(at / tokens.length);
    const g = svg("g", { class: "extreme" }, layers.marks);
    svg("line", { x1: box.left, x2: box.right, y1: bars.y(v), y2: bars.y(v) }, g);
    const text = svg("text", { x: box.right, y: bars.y(v), dy: low ? "1.1em" : "-0.75em" }, g);
    setSvg(text, `q_${tokens[i]}·k_${tokens[at % tokens.length]} ${fixed(v)}`);
    return { g, i };
  });

  // the winner is the washed bar: its name is for a screen reader only (css: F06)
  const out = readouts({ top: t({ zh: "得分最高的键", en: "highest-scoring key" }) }, { key: "top" });

  const fig = figure(el, {
    state: { token: first },
    clamp: (s) => ({ token: tokenIndex(tokens, s.token, first) }),
    discrete: ["token"],
    draw({ token }) {
      const row = R[token],
        best = argmax(row);
      step.show(token);
      setSvg(heading, `q_${tokens[token]}·k`);
      bars.set(row, { win: best });
      out.show({ top: tokens[best] });
      for (const { g, i } of extremes) g.style.display = i === token ? "none" : "";
    },
  });
}
