// How numbers print on the page: the mirror of selfattn/numbers.py, ties included.
// Every function here has a Python twin of the same name, tested against it.
// Python rounds a value lying exactly halfway to even (f"{2.25:.1f}" is "2.2"); toFixed
// and toExponential round it up. Byte counts are binary fractions, so for them ties are
// real (1,536 tokens take exactly 2.25 MiB); the helpers below settle them as Python does.

const MINUS = "\u2212";
const TAIL = 25; // exact digits past the kept ones: enough to tell a tie from a near miss

/** The kept part of an exact expansion whose next digits are 5 then zeros, else null. */
function halfway(digits) {
  const tail = digits.slice(-TAIL);
  return tail === `5${"0".repeat(TAIL - 1)}` ? digits.slice(0, -TAIL) : null;
}

/** Kept digits rounded to even: `head` as it is, or one unit of its last place further out. */
function toEven(head, unit) {
  const last = Number(head.replace(".", "").slice(-1));
  return Number(head) + (last % 2 === 0 ? 0 : unit);
}

/** x.toFixed(decimals), but an exact tie goes to the even neighbour. */
function toFixedEven(x, decimals) {
  if (Math.abs(x) >= 1e21) return x.toFixed(decimals);
  // A tie is m + ½ units of the last place. Below 2⁵² units that is exactly representable, so
  // the product is exact and shows it; anything else needs no 27-digit expansion (the slow part).
  const units = Math.abs(x) * 10 ** decimals;
  if (units < 2 ** 52 && units % 1 !== 0.5) return x.toFixed(decimals);
  const head = halfway(Math.abs(x).toFixed(decimals + TAIL));
  return head === null ? x.toFixed(decimals) : (Math.sign(x) * toEven(head, 10 ** -decimals)).toFixed(decimals);
}

/** x.toExponential(fraction), but an exact tie goes to the even neighbour. */
function toExponentialEven(x, fraction) {
  const [mantissa, exponent] = Math.abs(x)
    .toExponential(fraction + TAIL)
    .split("e");
  const head = halfway(mantissa);
  if (head === null) return x.toExponential(fraction);
  return (Math.sign(x) * toEven(head, 10 ** -fraction) * 10 ** Number(exponent)).toExponential(fraction);
}
const SUPERSCRIPT = { 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹", "-": "⁻" };

/**
 * Fixed decimals with a real minus sign; a value that rounds to zero has no sign.
 * @param {number} x
 * @param {number} [decimals=2]
 * @returns {string}
 */
export function fixed(x, decimals = 2) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "—" : x > 0 ? "∞" : `${MINUS}∞`;
  let text = toFixedEven(x, decimals);
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
  const [mantissa, exponent] = toExponentialEven(x, digits - 1).split("e");
  const power = String(Number(exponent))
    .split("")
    .map((c) => SUPERSCRIPT[c])
    .join("");
  return `${mantissa.replace("-", MINUS)} × 10${power}`;
}

/** A weight: fixed decimals while that shows it, scientific below (never a bare 0). */
export function weight(x, decimals = 3) {
  return x > 0 && x < 0.5 * 10 ** -decimals ? scientific(x) : fixed(x, decimals);
}

/**
 * A weight in a map cell, five characters at most: an exact zero says 0, a weight too
 * small for two decimals says <0.01, never a bare 0.00.
 * @param {number} w
 */
export function cellWeight(w) {
  if (w === 0) return "0";
  return w < 0.005 ? "<0.01" : fixed(w);
}

/** A fraction as a whole percentage, as the article prints it: 0.0105 → "1%". */
export function percent(x) {
  return `${fixed(100 * x, 0)}%`;
}

/**
 * Thousands separators: 131072 → "131,072". Written out rather than toLocaleString("en-US"),
 * which builds a fresh ICU formatter on every call: about 100 ms of a 4x slower CPU over one
 * load, the largest single cost in a profile of the figures starting.
 */
export function grouped(n) {
  const whole = Math.round(n);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+$)/g, ",");
  return whole < 0 ? MINUS + digits : digits;
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

/** A token label that fits: "representation" → "represe…". @param {string} s @param {number} [most] */
export function elide(s, most = 8) {
  return s.length > most ? `${s.slice(0, most - 1)}…` : s;
}
