// A figure's state in the URL: #F07:f=4.4 (several figures: #F02:x=1,0.5&F07:f=4.4).
// Reading is forgiving: what a figure's clamp cannot use, it ignores.

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
 * @param {string} hash e.g. "#F07:f=4.4&F02:x=1,0.5"
 * @returns {Record<string, Record<string, unknown>>}
 */
export function statesFromHash(hash) {
  /** @type {Record<string, Record<string, unknown>>} */
  const wanted = {};
  for (const entry of hash.replace(/^#/, "").split("&")) {
    const match = /^(F\d\d):(.*)$/.exec(entry);
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
    wanted[match[1]] = state;
  }
  return wanted;
}

/** The hash that restores a figure's state: "#F07:f=4.4". */
export function hashForState(id, state) {
  const pairs = Object.entries(state).map(([k, v]) => `${k}=${formatValue(v)}`);
  return `#${id}:${pairs.join(";")}`;
}
