// Why two heads, in the browser: the mirror of selfattn/heads.py. Two 2-D heads read the
// sentence under the causal mask (head 2 turning its queries and keys by position, as F28
// does), and W_O joins their outputs: the output is the sum of each head's output through
// its half of W_O, of the heads that are on.

import { applyMask, project, scaledScores, softmax, times, turn, weightedSum } from "./attention.js";

/** @typedef {number[]} Vec  @typedef {number[][]} Mat */
/** @typedef {{WQ: Mat[], WK: Mat[], WV: Mat[], theta: number[], WO: Mat}} TwoHeads heads.py's, as shipped */
/** @typedef {{weights: Mat[], outputs: Mat[], parts: Mat[], output: Mat}} Joined */

/**
 * Both heads on the sentence X (n × d); a head that is off adds no part to the output.
 * @param {Mat} X @param {TwoHeads} heads @param {boolean[]} [on] @returns {Joined}
 */
export function join(X, heads, on = [true, true]) {
  const d = X[0].length;
  /** @type {Joined} */
  const joined = { weights: [], outputs: [], parts: [], output: X.map(() => new Array(d).fill(0)) };
  for (let h = 0; h < 2; h += 1) {
    const Q = project(X, heads.WQ[h]).map((q, p) => turn(q, p * heads.theta[h]));
    const K = project(X, heads.WK[h]).map((k, p) => turn(k, p * heads.theta[h]));
    const W = softmax(applyMask(scaledScores(Q, K), "causal"));
    const out = weightedSum(W, project(X, heads.WV[h]));
    const half = heads.WO.slice(h * d, (h + 1) * d);
    const part = out.map((o) => times(o, half));
    joined.weights.push(W);
    joined.outputs.push(out);
    joined.parts.push(part);
    if (on[h]) joined.output = joined.output.map((o, i) => o.map((c, j) => c + part[i][j]));
  }
  return joined;
}
