// Gradient descent finds cat, in the browser: the mirror of selfattn/learn.py, step for step.
// The task (inputs, labels, W_V, the readout) comes from Python; only W_Q and W_K learn.

import { dot, softmaxRow, times } from "./attention.js";

/** @typedef {number[]} Vec  @typedef {number[][]} Mat */
/**
 * @typedef {{X: Mat[], labels: number[], WV: Mat, direction: Vec, midpoint: Vec, it: number,
 *   gain: number, startRange: number}} Task
 * @typedef {{loss: number, weights: Vec[], dWQ: Mat, dWK: Mat, dq: Vec[], dK: Mat[]}} Pass `dq` and
 *   `dK`: ∂loss/∂q_it and ∂loss/∂k_j through each sentence, the pulls F27 draws
 */

/**
 * Uniform floats in [0, 1): mulberry32, the same sequence as learn.py's.
 * @param {number} seed @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * W_Q and W_K at step 0: eight draws uniform in ±range, to two decimals.
 * @param {number} seed @param {number} range @returns {[Mat, Mat]}
 */
export function start(seed, range) {
  const draw = mulberry32(seed);
  const e = Array.from({ length: 8 }, () => Math.round((2 * draw() - 1) * range * 100) / 100);
  return [
    [e.slice(0, 2), e.slice(2, 4)],
    [e.slice(4, 6), e.slice(6, 8)],
  ];
}

/** @param {number} rows @param {number} cols @returns {Mat} */
const zeros = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(0));

/**
 * The loss, the row of `it` in each sentence and both gradients, by hand.
 * @param {Task} task @param {Mat} WQ @param {Mat} WK @returns {Pass}
 */
export function forwardBackward(task, WQ, WK) {
  const rootD = Math.sqrt(WQ.length);
  const dWQ = zeros(2, 2);
  const dWK = zeros(2, 2);
  const weights = [];
  /** @type {Vec[]} */
  const dqs = [];
  /** @type {Mat[]} */
  const dKs = [];
  let loss = 0;
  const count = task.X.length;
  task.X.forEach((X, s) => {
    const q = times(X[task.it], WQ);
    const K = X.map((x) => times(x, WK));
    const V = X.map((x) => times(x, task.WV));
    const w = softmaxRow(K.map((k) => dot(k, q) / rootD));
    const out = [0, 1].map((c) => w.reduce((sum, wj, j) => sum + wj * V[j][c], 0));
    const z = task.gain * dot([out[0] - task.midpoint[0], out[1] - task.midpoint[1]], task.direction);
    const signed = task.labels[s] === 1 ? z : -z;
    // log(1 + e^−signed) without overflow, as numpy's logaddexp(0, −signed)
    loss += (Math.max(0, -signed) + Math.log1p(Math.exp(-Math.abs(signed)))) / count;
    const dz = (1 / (1 + Math.exp(-z)) - task.labels[s]) / count;
    const dOut = task.direction.map((u) => task.gain * dz * u);
    const dw = V.map((v) => dot(v, dOut));
    const mean = dot(w, dw);
    const ds = w.map((wj, j) => (wj * (dw[j] - mean)) / rootD);
    const dq = [0, 1].map((c) => ds.reduce((sum, dsj, j) => sum + dsj * K[j][c], 0));
    for (let i = 0; i < 2; i += 1) {
      for (let c = 0; c < 2; c += 1) {
        dWQ[i][c] += X[task.it][i] * dq[c];
        dWK[i][c] += ds.reduce((sum, dsj, j) => sum + X[j][i] * dsj * q[c], 0);
      }
    }
    weights.push(w);
    dqs.push(dq);
    dKs.push(ds.map((dsj) => q.map((qc) => dsj * qc)));
  });
  return { loss, weights, dWQ, dWK, dq: dqs, dK: dKs };
}

/**
 * One step of plain gradient descent. @param {Mat} W @param {Mat} dW @param {number} rate
 * @returns {Mat}
 */
export function descend(W, dW, rate) {
  return W.map((row, i) => row.map((x, j) => x - rate * dW[i][j]));
}

/**
 * @typedef {{WQ: Mat[], WK: Mat[], loss: number[], weights: Vec[][]}} Run W_Q and W_K at every
 *   step from 0 to the last, and the loss and the row of `it` (each sentence) there
 */

/**
 * Plain gradient descent on W_Q and W_K, full batch, from `start(seed)`: learn.py's `train`.
 * @param {Task} task @param {number} seed @param {number} rate @param {number} steps @returns {Run}
 */
export function train(task, seed, rate, steps) {
  let [WQ, WK] = start(seed, task.startRange);
  /** @type {Run} */
  const run = { WQ: [], WK: [], loss: [], weights: [] };
  for (let step = 0; step <= steps; step += 1) {
    const p = forwardBackward(task, WQ, WK);
    run.WQ.push(WQ);
    run.WK.push(WK);
    run.loss.push(p.loss);
    run.weights.push(p.weights);
    if (step < steps) {
      WQ = descend(WQ, p.dWQ, rate);
      WK = descend(WK, p.dWK, rate);
    }
  }
  return run;
}
