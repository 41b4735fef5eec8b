// show_lines's widget, BertViz's head view in the article's language: the queries down the
// left, the keys down the right, and from the query in focus a line to every key it sees,
// its width ∝ weight. Hovering a query (or ↑ ↓) moves the focus; hovering a key turns the
// picture round, to every query's weight on that key. Past WINDOW tokens, the tokens around
// the query in focus are drawn and the weight outside them is said in words.

import { html, svg } from "../../site/static/js/kit/dom.js";
import { elide, fixed } from "../../site/static/js/kit/format.js";
import { floats, headNames, makeSteppers, shell, tokensOf, weightText } from "./common.js";

// at most WINDOW tokens are drawn, ROW px apart, closer (DENSE) past 32 tokens: a long head
// stays within a laptop's screen (48 tokens, 750 px), its words still 12.5 px
const WINDOW = 48;
const ROW = 20,
  DENSE = 15;
const NAMED = 4; // weights printed beside the heaviest lines
// the picture is as wide as the widget, drawn at 1:1 so its words keep their size: a label's
// room on each side (the numbers sit outside the labels, off the lines), and how many
// characters it shows, narrower on a phone
const room = (width) => (width < 520 ? { pad: 112, chars: 10 } : { pad: 150, chars: 14 });
const NARROWEST = 300;
// heads overlaid (show_lines(..., heads=[...])) are told apart by dash, not hue: every hue in
// the article has a meaning of its own (DESIGN.md, colour roles)
const DASHES = ["", "7 4", "2 3", "10 3 2 3"];

/** @param {{model: any, el: HTMLElement}} o */
export function renderLines({ model, el }) {
  const started = performance.now();
  // a rectangular map (cross-attention, a sentence pair) has keys of its own down the right
  const { tokens, keys: keyNames, n, nk, size: counted } = tokensOf(model);
  const size = Math.min(n, WINDOW),
    ksize = Math.min(nk, WINDOW);
  const pitch = Math.max(size, ksize) > 32 ? DENSE : ROW; // px per token
  const { root, stop } = shell(el, model.get("css"), () => {});
  root.classList.add("lines");
  const pickers = html("div", { class: "pickers" });
  root.append(
    html(
      "div",
      { class: "nb-head" },
      html("div", {
        class: "nb-title",
        text: model.get("title") || `attention lines, ${counted}`,
      }),
      pickers,
    ),
  );
  const picked = /** @type {number[][]} */ (model.get("picked") ?? []).slice(0, DASHES.length);
  const names = headNames(model, model.get("shape"));
  // overlaid heads are named in the header: a stepper there would claim one head on screen
  const showSteps = picked.length ? () => {} : makeSteppers(pickers, model, model.get("shape")).update;
  if (picked.length)
    pickers.append(
      html("span", {
        class: "overlaid-heads",
        "data-readout": "heads",
        text: `overlaid: ${picked.map(([layer, head]) => names.name(layer, head)).join(", ")}`,
      }),
    );
  const picture = svg("svg", { class: "chart lines-view", role: "img", tabindex: 0 });
  const said = html("p", { class: "figure-note", "data-readout": "lines" });
  root.append(picture, said);
  const titles = [svg("text", { class: "grid-title" }, picture), svg("text", { class: "grid-title" }, picture)];
  titles[0].textContent = "queries";
  titles[1].textContent = "keys";
  const band = svg("rect", { class: "wash", x: 0, height: pitch, rx: 5 }, picture);
  const strokes = svg("g", {}, picture);
  const y = (k) => 28 + (k + 0.5) * pitch;
  const side = (anchor, cls, count) =>
    Array.from({ length: count }, (_, k) => {
      const text = svg("text", { class: `token ${cls}`, y: y(k) + 4, "text-anchor": anchor }, picture);
      text.dataset.slot = String(k);
      return text;
    });
  const queries = side("end", "query-label", size),
    keys = side("start", "key-label", ksize);
  // the first query and key drawn: the window around the query in focus, and the keys at the
  // same place along theirs
  const windows = (row) => {
    const lo = Math.min(Math.max(0, row - (size >> 1)), n - size);
    const at = nk === n ? row : Math.round((row * nk) / n);
    return [lo, Math.min(Math.max(0, at - (ksize >> 1)), nk - ksize)];
  };
  let weights = floats(model.get("weights")),
    key = -1;
  /** every head drawn: the one on screen, or the ones overlaid, each with its weights */
  const drawn = () => {
    if (!picked.length) return [{ name: "", dash: "", w: weights }];
    const all = floats(model.get("panels"));
    return picked.map(([layer, head], k) => ({
      name: names.name(layer, head),
      dash: DASHES[k],
      w: all.subarray(k * n * nk, (k + 1) * n * nk),
    }));
  };
  if (picked.length) {
    const legend = html("p", { class: "figure-note overlay-legend", "data-readout": "overlaid" });
    for (const { name, dash } of drawn()) {
      const sample = svg("svg", { width: 28, height: 10, "aria-hidden": "true" });
      svg(
        "line",
        { class: "weight-line", x1: 2, y1: 5, x2: 26, y2: 5, "stroke-width": 2, "stroke-dasharray": dash },
        sample,
      );
      legend.append(sample, ` ${name}  `);
    }
    root.append(legend);
  }
  // where the two columns stand, for the width the widget has
  let [wide, left, right, chars] = [0, 0, 0, 14];
  function layout() {
    const width = Math.max(NARROWEST, Math.round(root.clientWidth - 24) || 480);
    if (width === wide) return false;
    const fit = room(width);
    [wide, left, right, chars] = [width, fit.pad, width - fit.pad, fit.chars];
    picture.setAttribute("viewBox", `0 0 ${wide} ${Math.max(size, ksize) * pitch + 28}`);
    titles[0].setAttribute("x", String(left - 40));
    titles[1].setAttribute("x", String(right + 40));
    for (const t of titles) t.setAttribute("y", "12");
    band.setAttribute("width", String(left + 6));
    for (const t of queries) t.setAttribute("x", String(left - 6));
    for (const t of keys) t.setAttribute("x", String(right + 6));
    return true;
  }

  function draw() {
    const row = model.get("row");
    const [lo, klo] = windows(row);
    const masked = (i, j) => model.get("causal") && j > i;
    queries.forEach((t, k) => {
      t.textContent = elide(tokens[lo + k], chars);
      t.classList.toggle("current", key < 0 && lo + k === row);
    });
    keys.forEach((t, k) => {
      t.textContent = elide(keyNames[klo + k], chars);
      t.classList.toggle("masked", key < 0 && masked(row, klo + k));
      t.classList.toggle("current", klo + k === key);
    });
    band.style.display = key < 0 ? "" : "none";
    band.setAttribute("y", String(y(row - lo) - pitch / 2));
    // one query to every key, or, with a key hovered, every query to that key
    const pairs =
      key < 0
        ? Array.from({ length: ksize }, (_, k) => [row, klo + k])
        : Array.from({ length: size }, (_, k) => [lo + k, key]);
    const heads = drawn();
    const w = pairs.map(([i, j]) => heads[0].w[i * nk + j]);
    // numbers beside the heaviest lines of one head; overlaid heads would print over each other
    const named = new Set(
      heads.length > 1
        ? []
        : [...w.keys()]
            .sort((a, b) => w[b] - w[a])
            .slice(0, NAMED)
            .filter((k) => w[k] >= 0.005),
    );
    strokes.replaceChildren();
    for (const { dash, w: hw } of heads) {
      pairs.forEach(([i, j]) => {
        const v = hw[i * nk + j];
        if (v > 0)
          svg(
            "line",
            {
              class: `weight-line${key < 0 ? "" : " by-key"}`,
              x1: left,
              y1: y(i - lo),
              x2: right,
              y2: y(j - klo),
              "stroke-width": Math.max(0.4, 9 * v),
              "stroke-dasharray": dash,
            },
            strokes,
          );
      });
    }
    pairs.forEach(([i, j], k) => {
      if (named.has(k)) {
        const [x, at] = key < 0 ? [wide - 4, j - klo] : [4, i - lo];
        const text = svg(
          "text",
          { class: "line-weight", x, y: y(at) + 4, "text-anchor": key < 0 ? "end" : "start" },
          strokes,
        );
        text.textContent = fixed(w[k], 2);
      }
    });
    const total = w.reduce((a, b) => a + b, 0);
    const top = [...w.keys()].reduce((a, b) => (w[b] > w[a] ? b : a), 0);
    const outside =
      ksize < nk
        ? `; ${fixed(1 - total, 3)} of it on tokens outside the ${ksize} drawn (${klo}–${klo + ksize - 1})`
        : "";
    const whose = heads.length > 1 ? `${heads[0].name}, ` : "";
    said.textContent =
      whose +
      (key < 0
        ? `query ${row} · ${tokens[row]}: most weight on ${keyNames[pairs[top][1]]} (${weightText(w[top])})${outside}`
        : `key ${key} · ${keyNames[key]}: weighed most by ${tokens[pairs[top][0]]} (${weightText(w[top])})`);
    showSteps();
  }

  const slotOf = (event) => {
    const slot = /** @type {Element} */ (event.target).closest?.("text.token");
    const keyed = slot?.classList.contains("key-label");
    return slot
      ? /** @type {[boolean, number]} */ ([keyed, Number(/** @type {SVGElement} */ (slot).dataset.slot)])
      : null;
  };
  picture.addEventListener("pointermove", (event) => {
    const at = slotOf(event);
    if (!at) return;
    const [lo, klo] = windows(model.get("row"));
    if (at[0]) {
      if (key !== klo + at[1]) {
        key = klo + at[1];
        draw();
      }
    } else if (key >= 0 || model.get("row") !== lo + at[1]) {
      key = -1;
      model.set("row", lo + at[1]);
      model.save_changes();
      draw();
    }
  });
  picture.addEventListener("pointerleave", () => {
    if (key < 0) return;
    key = -1;
    draw();
  });
  picture.addEventListener("keydown", (event) => {
    const by = { ArrowUp: -1, ArrowDown: 1, PageUp: -10, PageDown: 10 }[event.key];
    if (!by) return;
    event.preventDefault();
    key = -1;
    model.set("row", Math.min(n - 1, Math.max(0, model.get("row") + by)));
    model.save_changes();
  });
  const onWeights = () => {
    weights = floats(model.get("weights"));
    draw();
  };
  model.on("change:weights", onWeights);
  model.on("change:row", draw);
  layout();
  draw();
  // a notebook may draw the widget before it is on the page, or resize its column
  const resized = new ResizeObserver(() => layout() && draw());
  resized.observe(root);
  root.dataset.drawMs = (performance.now() - started).toFixed(1);
  return () => {
    stop();
    resized.disconnect();
    model.off("change:weights", onWeights);
    model.off("change:row", draw);
  };
}
