// Notation as the prose writes it: "W_Q" is W with a subscript Q, "q·k_cat" is q·k with
// cat below, "10^-14" a superscript. Written once here for HTML and for SVG text, so no
// label on the page ever shows an underscore.

const NS = "http://www.w3.org/2000/svg";
const SCRIPT = /([_^])(\{[^}]*\}|[^\s,)\]·=+−×/]+)/g;
const BRACES = /^\{|\}$/g;

/**
 * Split "q·k_cat" into runs: [["q·k", ""], ["cat", "sub"]]. A subscript or superscript
 * runs to the next space, comma, closing bracket or operator.
 * @param {string} text
 * @returns {[string, ""|"sub"|"sup"][]}
 */
export function runs(text) {
  // most labels are plain: no regular expression to run (a figure's first draw calls this
  // for every label, before V8 has compiled the pattern)
  if (!text.includes("_") && !text.includes("^")) return text ? [[text, ""]] : [];
  /** @type {[string, ""|"sub"|"sup"][]} */
  const out = [];
  let at = 0;
  for (const match of text.matchAll(SCRIPT)) {
    const index = match.index ?? 0;
    if (index > at) out.push([text.slice(at, index), ""]);
    out.push([match[2].replace(BRACES, ""), match[1] === "_" ? "sub" : "sup"]);
    at = index + match[0].length;
  }
  if (at < text.length) out.push([text.slice(at), ""]);
  return out;
}

/**
 * Fill an HTML element with notation: real <sub> and <sup> elements.
 * @param {HTMLElement} el @param {string} text
 */
export function setHtml(el, text) {
  el.replaceChildren(
    ...runs(text).map(([part, kind]) => {
      if (!kind) return document.createTextNode(part);
      const sub = document.createElement(kind);
      sub.textContent = part;
      return sub;
    }),
  );
}

/**
 * Fill an SVG <text> with notation: subscripts as smaller, shifted <tspan>s.
 * @param {SVGElement} el @param {string} text
 */
export function setSvg(el, text) {
  const parts = runs(text);
  if (parts.length === 1 && !parts[0][1]) {
    if (el.textContent !== text) el.textContent = text;
    return;
  }
  // the same runs already there: no new nodes, which would lay the text out again (issue 50)
  const nodes = el.childNodes;
  if (
    nodes.length === parts.length &&
    parts.every(([part, kind], i) => {
      const node = nodes[i];
      return kind
        ? node instanceof Element && node.getAttribute("class") === kind && node.textContent === part
        : node.nodeType === Node.TEXT_NODE && node.textContent === part;
    })
  )
    return;
  el.replaceChildren(
    ...parts.map(([part, kind]) => {
      if (!kind) return document.createTextNode(part);
      const span = document.createElementNS(NS, "tspan");
      span.setAttribute("class", kind);
      span.setAttribute("baseline-shift", kind === "sub" ? "sub" : "super");
      span.textContent = part;
      return span;
    }),
  );
}

/** The text a screen reader or an export should see: "W_Q" → "W Q" is wrong, "WQ" is right. */
export function plain(text) {
  return runs(text)
    .map(([part]) => part)
    .join("");
}
