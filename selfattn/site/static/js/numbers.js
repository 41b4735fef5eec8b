// How numbers print on the page: the mirror of selfattn/numbers.py.

const MINUS = "\u2212";
const SUPERSCRIPT = { "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻" };

/**
 * Fixed decimals with a real minus sign; a value that rounds to zero has no sign.
 * @param {number} x
 * @param {number} [decimals=2]
 * @returns {string}
 */
export function fixed(x, decimals = 2) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "—" : x > 0 ? "∞" : MINUS + "∞";
  let text = x.toFixed(decimals);
  if (Number(text) === 0) text = text.replace("-", "");
  return text.replace("-", MINUS);
}

/**
 * Scientific notation as the article prints it: 1.2 × 10⁻¹⁴.
 * @param {number} x
 * @param {number} [digits=2] significant figures
 */
export function scientific(x, digits = 2) {
  if (x === 0 || !Number.isFinite(x)) return fixed(x, digits - 1);
  const [mantissa, exponent] = x.toExponential(digits - 1).split("e");
  const power = String(Number(exponent)).split("").map((c) => SUPERSCRIPT[c]).join("");
  return `${mantissa.replace("-", MINUS)} × 10${power}`;
}

/** A weight: fixed decimals while that shows it, scientific below (never a bare 0). */
export function weight(x, decimals = 3) {
  return x > 0 && x < 0.5 * 10 ** -decimals ? scientific(x) : fixed(x, decimals);
}

/** Thousands separators: 131072 → "131,072". */
export function grouped(n) {
  return Math.round(n).toLocaleString("en-US").replace("-", MINUS);
}

/** [x, y] → "[0.82, 0.81]". */
export function vector(v, decimals = 2) {
  return `[${v.map((x) => fixed(x, decimals)).join(", ")}]`;
}

const UNITS = ["bytes", "KiB", "MiB", "GiB", "TiB"];

/** Binary sizes: 2·1024² → "2.0 MiB". */
export function size(bytes, decimals = 1) {
  let unit = 0;
  while (bytes >= 1024 && unit < UNITS.length - 1) {
    bytes /= 1024;
    unit += 1;
  }
  return `${fixed(bytes, unit ? decimals : 0)} ${UNITS[unit]}`;
}
