// Start every figure with the head's parameters, give it its tools, and restore any
// state the address asks for (#F07:f=4.4).

import { addTools } from "./tools.js";
import { statesFromHash } from "./share.js";
import { addPrediction } from "./predict.js";
import { describe } from "./a11y.js";

const data = JSON.parse(document.getElementById("selfattn-data").textContent);
const head = {
  tokens: data.head.tokens,
  X: data.head.tokens.map((t) => data.head.embeddings[t]),
  WQ: data.head.W_Q,
  WK: data.head.W_K,
  WV: data.head.W_V,
};
const wanted = statesFromHash(location.hash);

for (const el of document.querySelectorAll("figure[data-module]")) {
  import(new URL(`../${el.dataset.module}`, import.meta.url).href)
    .then((module) => {
      module.default(el, head);
      addTools(el);
      describe(el);
      if (data.predictions[el.id] && !wanted[el.id]) addPrediction(el, data.predictions[el.id]);
      if (wanted[el.id]) {
        el.figure.set(wanted[el.id]);
        requestAnimationFrame(() => el.scrollIntoView({ block: "center" }));
      }
    })
    .catch((error) => {
      el.classList.add("broken");
      console.error(`figure ${el.id} failed to start`, error);
    });
}

window.addEventListener("hashchange", () => {
  for (const [id, state] of Object.entries(statesFromHash(location.hash))) {
    document.getElementById(id)?.figure?.set(state);
  }
});
