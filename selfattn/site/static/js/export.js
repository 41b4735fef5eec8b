// A figure's picture as SVG or PNG, and its numbers as JSON, downloaded from the page.

const STYLED = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-linecap",
  "vector-effect",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "paint-order",
  "stroke-linejoin",
  "display",
  "visibility",
];

/**
 * A standalone copy of an SVG: every element carries its computed style as presentation
 * attributes (not style attributes, which the page's CSP refuses), so the file looks the
 * same outside the page, where no stylesheet travels with it.
 * @param {SVGSVGElement} svg
 * @returns {string}
 */
export function standaloneSvg(svg) {
  const copy = /** @type {SVGSVGElement} */ (svg.cloneNode(true));
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [copy, ...copy.querySelectorAll("*")];
  // the file is drawn one user unit a pixel: its type at the design size, not the page's scale
  const scale = svg.style.getPropertyValue("--px");
  svg.style.setProperty("--px", "1");
  originals.forEach((el, i) => {
    const style = getComputedStyle(el);
    for (const property of STYLED) copies[i].setAttribute(property, style.getPropertyValue(property));
    if (el.classList.contains("hit"))
      copies[i].remove(); // invisible touch targets
    else copies[i].removeAttribute("class");
  });
  if (scale) svg.style.setProperty("--px", scale);
  else svg.style.removeProperty("--px");
  copy.style.removeProperty("--px");
  const box = svg.viewBox.baseVal;
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("width", String(box.width));
  copy.setAttribute("height", String(box.height));
  const paper = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [k, v] of Object.entries({ x: box.x, y: box.y, width: box.width, height: box.height })) {
    paper.setAttribute(k, String(v));
  }
  paper.setAttribute("fill", getComputedStyle(svg).backgroundColor);
  copy.prepend(paper);
  return new XMLSerializer().serializeToString(copy);
}

/**
 * A canvas as a PNG blob, encoded now: toBlob waits for the page's next idle moment, which
 * comes up to a second after a click.
 * @param {HTMLCanvasElement} canvas
 */
export function pngOf(canvas) {
  const data = canvas.toDataURL("image/png");
  const bytes = Uint8Array.from(atob(data.slice(data.indexOf(",") + 1)), (c) => c.charCodeAt(0));
  return new Blob([bytes], { type: "image/png" });
}

/** Render SVG text to a PNG blob at `scale` times its size. */
export function pngFromSvg(text, width, height, scale = 2) {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      const context = canvas.getContext("2d");
      context.scale(scale, scale);
      context.drawImage(image, 0, 0, width, height);
      URL.revokeObjectURL(url);
      resolve(pngOf(canvas));
    };
    image.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("the SVG did not render"));
    };
    image.src = url;
  });
}

/** The figure's numbers: its state and every read-out, by name. */
export function figureNumbers(el) {
  const readouts = Object.fromEntries(
    [...el.querySelectorAll("[data-readout]")].map((r) => [r.dataset.readout, r.textContent]),
  );
  return { figure: el.id, state: el.figure.state, readouts };
}

/** Offer a blob as a file download. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
