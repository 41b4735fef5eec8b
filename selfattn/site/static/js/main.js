// Start every figure on the page with the head's parameters from the embedded data.

const data = JSON.parse(document.getElementById("selfattn-data").textContent);
const head = {
  tokens: data.head.tokens,
  X: data.head.tokens.map((t) => data.head.embeddings[t]),
  WQ: data.head.W_Q,
  WK: data.head.W_K,
  WV: data.head.W_V,
};

for (const el of document.querySelectorAll("figure[data-module]")) {
  import(new URL(`../${el.dataset.module}`, import.meta.url).href)
    .then((module) => module.default(el, head))
    .catch((error) => {
      el.classList.add("broken");
      console.error(`figure ${el.id} failed to start`, error);
    });
}
