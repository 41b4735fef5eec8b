// A figure's state in the URL: #long-key:f=4.4 (several figures: #drag-input:x=1,0.5&long-key:f=4.4).
// A figure is named by its slug; links made before the slugs name it by its label of then
// (#F07:f=4.4), which LEGACY turns into the slug, so they open the figure they opened.
// Reading is forgiving: what a figure's clamp cannot use, it ignores.

/**
 * The labels of the page as it stood when figures were renamed by slug (29 figures, in that
 * order): frozen, never renumbered, since a label in a shared link must keep its figure.
 * @type {Record<string, string>}
 */
export const LEGACY = {
  F01: "install",
  F02: "drag-input",
  F03: "query-meets-keys",
  F04: "two-maps",
  F05: "shadow",
  F06: "score-row",
  F07: "long-key",
  F08: "fill-matrix",
  F09: "walk-rows",
  F10: "transpose",
  F11: "staircase",
  F12: "give-way",
  F13: "never-zero",
  F14: "spread",
  F15: "collapse",
  F16: "divisor",
  F17: "remove-future",
  F18: "asking-position",
  F19: "multiply-leak",
  F20: "tip-to-tail",
  F21: "convex-hull",
  F22: "shuffle",
  F23: "context-cost",
  F24: "tiled-pass",
  F25: "attention-map",
  F26: "silent-bugs",
  F27: "gradient-finds-cat",
  F28: "positions-turn",
  F29: "two-heads",
};

/** A slug from a slug or a label of the frozen table ("F07" → "long-key"). @param {string} name */
export function slugOf(name) {
  return LEGACY[name] ?? name;
}

/** Parse one value: numbers, comma-separated numbers, true/false, or text. */
function parseValue(text) {
  const raw = decodeURIComponent(text);
  if (raw === "true" || raw === "false") return raw === "true";
  const parts = raw.split(",");
  const numbers = parts.map((p) => (p.trim() === "" ? NaN : Number(p)));
  if (numbers.every(Number.isFinite)) return parts.length > 1 ? numbers : numbers[0];
  return raw;
}

/** Format one value for a URL. */
function formatValue(value) {
  if (Array.isArray(value)) return value.map(formatValue).join(",");
  if (typeof value === "number") return String(value); // JS prints the shortest exact form
  return encodeURIComponent(String(value));
}

/**
 * The states a hash asks for, by figure id. Anything malformed is dropped, never thrown.
 * @param {string} hash e.g. "#long-key:f=4.4&drag-input:x=1,0.5" (or a label of LEGACY)
 * @returns {Record<string, Record<string, unknown>>}
 */
export function statesFromHash(hash) {
  /** @type {Record<string, Record<string, unknown>>} */
  const wanted = {};
  for (const entry of hash.replace(/^#/, "").split("&")) {
    const match = /^([a-z][a-z0-9-]*|F\d\d):(.*)$/.exec(entry);
    if (!match) continue;
    /** @type {Record<string, unknown>} */
    const state = {};
    for (const pair of match[2].split(";")) {
      const [key, value] = pair.split("=");
      if (!key || value === undefined || !/^[A-Za-z]\w*$/.test(key)) continue;
      try {
        state[key] = parseValue(value);
      } catch {
        // a malformed %-escape: leave this key out
      }
    }
    wanted[slugOf(match[1])] = state;
  }
  return wanted;
}

/** The hash that restores a figure's state: "#long-key:f=4.4". */
export function hashForState(id, state) {
  const pairs = Object.entries(state).map(([k, v]) => `${k}=${formatValue(v)}`);
  return `#${id}:${pairs.join(";")}`;
}
