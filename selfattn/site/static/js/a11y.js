// What a non-visual reader needs from every figure: its description tied to it, and one
// read-out (the first, or the one marked data-key) announced politely as it changes.

/** @param {HTMLElement} el a started figure */
export function describe(el) {
  const caption = el.querySelector("figcaption");
  caption.id = `${el.id}-caption`;
  for (const picture of el.querySelectorAll(".stage svg")) {
    picture.setAttribute("aria-describedby", caption.id);
  }
  const readouts = [...el.querySelectorAll("[data-readout]")];
  const key = readouts.find((r) => r.hasAttribute("data-key")) ?? readouts[0];
  for (const r of readouts) r.setAttribute("aria-live", r === key ? "polite" : "off");
}
