// What attention costs: the mirror of selfattn/cost.py (bytes of the scores and of the
// tokens, multiply-adds), with GPT-2 small as the preset the article quotes.
// Every result is an integer below 2⁵³ for the context lengths the page offers, so
// plain numbers are exact.

/** @typedef {{dModel: number, layers: number, heads: number, bytesPerNumber: number}} Model */

/** @type {Model} GPT-2 small, fp16. */
export const GPT2_SMALL = Object.freeze({ dModel: 768, layers: 12, heads: 12, bytesPerNumber: 2 });

/** Width of one head: d_model / heads (64 for GPT-2 small). @param {Model} [model] */
export function dHead(model = GPT2_SMALL) {
  return Math.floor(model.dModel / model.heads);
}

/** One head's n×n score matrix, written out. @param {number} n @param {Model} [model] */
export function scoreBytes(n, model = GPT2_SMALL) {
  return n * n * model.bytesPerNumber;
}

/** Every head of every layer writing its own n×n matrix. @param {number} n @param {Model} [model] */
export function allHeadsScoreBytes(n, model = GPT2_SMALL) {
  return scoreBytes(n, model) * model.layers * model.heads;
}

/** The tokens themselves: n vectors of width d_model. @param {number} n @param {Model} [model] */
export function tokenBytes(n, model = GPT2_SMALL) {
  return n * model.dModel * model.bytesPerNumber;
}

/** One head's output, n vectors of width d_head: all a tiled pass writes (F23, F24). @param {number} n @param {Model} [model] */
export function outputBytes(n, model = GPT2_SMALL) {
  return n * dHead(model) * model.bytesPerNumber;
}

/** Multiply-adds of one head: n² dot products of width d for Q Kᵀ, again for W V. */
export function headMacs(n, d) {
  return 2 * n * n * d;
}

/** One layer's four d_model×d_model projections over n tokens. @param {number} n @param {Model} [model] */
export function projectionMacs(n, model = GPT2_SMALL) {
  return 4 * n * model.dModel * model.dModel;
}

/** One layer's n² part: every head's 2·n²·d_head. @param {number} n @param {Model} [model] */
export function layerScoreMacs(n, model = GPT2_SMALL) {
  return model.heads * headMacs(n, dHead(model));
}

/** The context length past which the n² part costs more than the projections: 2·d_model. */
export function projectionsDominateUntil(model = GPT2_SMALL) {
  return 2 * model.dModel;
}

/** Every query against every key, its own included. @param {number} n */
export function dotProducts(n) {
  return n * n;
}

/** Scores above the diagonal: computed, then thrown away by the causal mask. @param {number} n */
export function causalDiscarded(n) {
  return Math.floor((n * (n - 1)) / 2);
}
