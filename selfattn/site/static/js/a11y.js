// What a non-visual reader needs from every figure: its description tied to it, and one
// read-out (the first, or the one marked data-key) announced politely as it changes.

/** @param {HTMLElement} el a started figure */
export function describe(el) {
  const caption = el.querySelector("figcaption");
  caption.id = `${el.id}-caption`;
  // a figure may draw a picture anew (F27 builds its plane and loss chart again for each seed
  // and rate): each one is tied to the caption as it arrives, not only those there at the start
  const tie = () => {
    for (const picture of el.querySelectorAll(".stage svg:not([aria-describedby])")) {
      picture.setAttribute("aria-describedby", caption.id);
    }
  };
  tie();
  new MutationObserver(tie).observe(el, { childList: true, subtree: true });
  const readouts = [...el.querySelectorAll("[data-readout]")];
  const key = readouts.find((r) => r.hasAttribute("data-key")) ?? readouts[0];
  for (const r of readouts) r.setAttribute("aria-live", r === key ? "polite" : "off");
}
