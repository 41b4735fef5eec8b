// The toy head's maths in the browser: the mirror of selfattn/attention.py (row vectors, q = x W_Q).

/** @typedef {number[]} Vec  @typedef {number[][]} Mat */

/** x (1×d) times W (d×d). @param {Vec} x @param {Mat} W @returns {Vec} */
export function times(x, W) {
  return W[0].map((_, j) => x.reduce((sum, xi, i) => sum + xi * W[i][j], 0));
}

/** Queries, keys or values of every token: X W. @param {Mat} X @param {Mat} W */
export function project(X, W) {
  return X.map((x) => times(x, W));
}

/** a · b */
export function dot(a, b) {
  return a.reduce((sum, ai, i) => sum + ai * b[i], 0);
}

/** |a| */
export function norm(a) {
  return Math.sqrt(dot(a, a));
}

/** R = Q Kᵀ. @param {Mat} Q @param {Mat} K */
export function rawScores(Q, K) {
  return Q.map((q) => K.map((k) => dot(q, k)));
}

/** S = Q Kᵀ / √d. */
export function scaledScores(Q, K) {
  const root = Math.sqrt(Q[0].length);
  return rawScores(Q, K).map((row) => row.map((r) => r / root));
}

/**
 * "causal" sets the future to −∞; "multiply" is the bug that sets it to 0; "none" leaves it.
 * @param {Mat} S @param {"none"|"causal"|"multiply"} mode
 */
export function applyMask(S, mode) {
  if (mode === "none") return S;
  if (mode !== "causal" && mode !== "multiply") throw new Error(`unknown mask mode ${mode}`);
  const fill = mode === "causal" ? -Infinity : 0;
  return S.map((row, i) => row.map((s, j) => (j > i ? fill : s)));
}

/**
 * Stable softmax of one row: subtracting the max cancels in the ratio, so it is exact.
 * A row with nothing finite to attend to gives zeros, not NaN.
 * @param {Vec} row
 */
export function softmaxRow(row) {
  let top = Math.max(...row);
  if (!Number.isFinite(top)) top = 0;
  const e = row.map((s) => Math.exp(s - top));
  const total = e.reduce((a, b) => a + b, 0);
  return total > 0 ? e.map((x) => x / total) : e.map(() => 0);
}

/** Row-wise softmax. @param {Mat} S */
export function softmax(S) {
  return S.map(softmaxRow);
}

/** out[i] = Σ_j W[i][j] v_j. @param {Mat} W @param {Mat} V */
export function weightedSum(W, V) {
  return W.map((w) => V[0].map((_, b) => w.reduce((sum, wj, j) => sum + wj * V[j][b], 0)));
}

/**
 * The whole head, every intermediate named as in the article.
 * @param {Mat} X @param {Mat} WQ @param {Mat} WK @param {Mat} WV
 * @param {"none"|"causal"|"multiply"} [mask="none"]
 */
export function attention(X, WQ, WK, WV, mask = "none") {
  const Q = project(X, WQ),
    K = project(X, WK),
    V = project(X, WV);
  const R = rawScores(Q, K);
  const root = Math.sqrt(X[0].length);
  const S = applyMask(
    R.map((row) => row.map((r) => r / root)),
    mask,
  );
  const W = softmax(S);
  return { Q, K, V, R, S, W, out: weightedSum(W, V) };
}

/**
 * The width experiment, anchored at the toy: width 2 is the toy's raw row `ate` (the base),
 * and at width d the raw scores are base·√(d/2); divide by nothing, √width or width.
 * @param {Vec} base @param {number} width @param {"none"|"sqrt"|"d"} [divisor="none"]
 */
export function widthMix(base, width, divisor = "none") {
  const divide = { none: 1, sqrt: Math.sqrt(width), d: width }[divisor];
  return softmaxRow(base.map((b) => (b * Math.sqrt(width / 2)) / divide));
}

/**
 * A 2-D vector turned by `angle` radians: RoPE in two dimensions turns the query and the key
 * at position p by p·θ (bugs.py's `turn`). @param {Vec} v @param {number} angle @returns {Vec}
 */
export function turn([a, b], angle) {
  return [a * Math.cos(angle) - b * Math.sin(angle), a * Math.sin(angle) + b * Math.cos(angle)];
}

/** Degrees between two vectors. */
export function angleBetween(a, b) {
  const c = dot(a, b) / (norm(a) * norm(b));
  return (Math.acos(Math.min(1, Math.max(-1, c))) * 180) / Math.PI;
}

/** W_K(t) = (1 − t)·W_K + t·W_Q: F04's slider. */
export function mixMatrices(WK, WQ, t) {
  return WK.map((row, i) => row.map((k, j) => (1 - t) * k + t * WQ[i][j]));
}

/** Index of the largest entry (the first, on a tie). @param {number[]} values */
export function argmax(values) {
  return values.reduce((best, v, i) => (v > values[best] ? i : best), 0);
}

/**
 * The outputs of `layers` attention layers with nothing between them, the first given: each
 * further layer takes the last outputs as inputs and passes them on as values (no MLP, no
 * value map), so each layer's points lie inside the last layer's polygon.
 * @param {Mat} out @param {Mat} WQ @param {Mat} WK @param {number} layers @returns {Mat[]}
 */
export function stackedAlone(out, WQ, WK, layers) {
  const stack = [out];
  while (stack.length < layers) {
    const X = stack[stack.length - 1];
    stack.push(weightedSum(softmax(scaledScores(project(X, WQ), project(X, WK))), X));
  }
  return stack;
}

/** The widest distance between two of the points. @param {Mat} points */
export function spread(points) {
  return Math.max(...points.flatMap((a) => points.map((b) => Math.hypot(...a.map((x, i) => x - b[i])))));
}

/**
 * One row's softmax-weighted sum streamed over the keys in tiles of `tile`, as a tiled
 * kernel computes it: a running max m, a running sum ℓ of exp(s − m) and an unnormalised
 * accumulator, both rescaled by exp(m_old − m_new) whenever the max grows, divided once at
 * the end. Returns the state before any tile and after each one, with the partial output.
 * `bug` reproduces a classic mistake: "rescale" skips the rescale, "divide" divides by ℓ
 * inside the loop; `start` carries a state over (a row whose accumulator was not reset).
 * `terms` is each seen key's share of ℓ, exp(s_j − m) as ℓ holds it (F24 draws them).
 * @param {Vec} s scores of the row @param {Mat} V values @param {number} tile
 * @param {{bug?: "none"|"rescale"|"divide", start?: {m: number, l: number, acc: Vec}}} [o]
 * @returns {{m: number, l: number, acc: Vec, rescale: number|null, out: Vec|null, keys: number, terms: Vec}[]}
 */
export function onlineSoftmax(s, V, tile, { bug = "none", start } = {}) {
  let m = start ? start.m : -Infinity,
    l = start ? start.l : 0,
    acc = start ? [...start.acc] : V[0].map(() => 0);
  /** @type {Vec} */
  let terms = [];
  const states = [{ m, l, acc, rescale: null, out: l > 0 ? acc.map((a) => a / l) : null, keys: 0, terms }];
  for (let from = 0; from < s.length; from += tile) {
    const to = Math.min(s.length, from + tile);
    const next = Math.max(m, ...s.slice(from, to));
    const rescale = Number.isFinite(m) ? Math.exp(m - next) : null;
    const c = bug === "rescale" || rescale === null ? (rescale === null ? 0 : 1) : rescale;
    const p = s.slice(from, to).map((x) => Math.exp(x - next));
    const sum = acc.map((a, b) => c * a + p.reduce((t, pj, k) => t + pj * V[from + k][b], 0));
    l = c * l + p.reduce((a, b) => a + b, 0);
    terms = [...terms.map((x) => c * x), ...p];
    // the "divide" bug keeps acc already divided by the old ℓ and divides again by the new one
    acc = bug === "divide" ? sum.map((x) => x / l) : sum;
    m = next;
    states.push({ m, l, acc, rescale, out: bug === "divide" ? acc : acc.map((a) => a / l), keys: to, terms });
  }
  return states;
}
