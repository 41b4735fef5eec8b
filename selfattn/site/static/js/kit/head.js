// The toy head as figures use it: tokens by name, the parameters as head.json names them,
// and every intermediate of a run computed once per mask.

import { attention } from "../attention.js";

/**
 * @typedef {ReturnType<typeof attention>} Run
 * @typedef {{floorScore: number, namedRaw: number, gpt2Context: number, longContext: number,
 *   thousandTokens: number, hugeShift: number, initWidth: number, initSpread: number,
 *   stretch: number, keyLimit: number, ropeTheta: number, turnShift: number}} Article
 *   the numbers the article picks, and the spread of raw scores at random init (article.py)
 * @typedef {{tokens: string[], X: number[][], W_Q: number[][], W_K: number[][], W_V: number[][],
 *   d: number, index(token: string): number, run(mask?: "none"|"causal"|"multiply"): Run}} Head
 */

/**
 * @param {{tokens: string[], embeddings: Record<string, number[]>, W_Q: number[][], W_K: number[][], W_V: number[][]}} data
 *   head.json as the build ships it
 * @returns {Head}
 */
export function makeHead(data) {
  const tokens = data.tokens;
  const X = tokens.map((token) => data.embeddings[token]);
  /** @type {Map<string, Run>} */
  const runs = new Map();
  return {
    tokens,
    X,
    W_Q: data.W_Q,
    W_K: data.W_K,
    W_V: data.W_V,
    d: X[0].length,
    index(token) {
      const i = tokens.indexOf(token);
      if (i < 0) throw new Error(`no token ${token} in the sentence`);
      return i;
    },
    run(mask = "none") {
      if (!runs.has(mask)) runs.set(mask, attention(X, data.W_Q, data.W_K, data.W_V, mask));
      return /** @type {Run} */ (runs.get(mask));
    },
  };
}
