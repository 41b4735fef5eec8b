// Tokens are objects you can point at (docs/design.md, decision 4). Every mark of a token in a
// figure carries `data-token` (one token, or a space-separated few: a matrix cell belongs
// to its query's row and its key's column); pointing at any of them (hover, keyboard focus,
// a tap) lights every mark of that token in the figure and dims the rest. The kit's parts
// mark themselves (arrows by their subscript, bars and grid rows and columns by their
// label); a figure marks its own drawings with `data-token="cat"`, and nothing else.
//
// The light is one class on the picture and one on each lit mark: no draw runs for it,
// and a draw that replaces marks keeps the token lit (the next pointer move relights).

/**
 * The token a label names, for linking (kit/link.js): the word after the subscript mark of
 * "k_cat" or "q_it", or the label itself where it is a word of the sentence.
 * @param {string} label
 */
export function tokenOf(label) {
  const m = /_\{?([a-z]+)\}?$/.exec(label) ?? /^([a-z]+)$/.exec(label);
  return m ? m[1] : "";
}

/**
 * Light `token`'s marks in `picture`, or none (null).
 * @param {Element} picture @param {string|null} token
 */
export function light(picture, token) {
  for (const el of picture.querySelectorAll(".lit")) el.classList.remove("lit");
  picture.classList.toggle("linking", token !== null);
  if (token === null) {
    delete (/** @type {HTMLElement} */ (picture).dataset.lit);
    return;
  }
  /** @type {HTMLElement} */ (picture).dataset.lit = token;
  for (const el of picture.querySelectorAll(`[data-token~="${CSS.escape(token)}"]`)) el.classList.add("lit");
}

/** The token of the mark an event is on: the first of its list (a cell: its row's). */
function tokenAt(/** @type {EventTarget|null} */ target) {
  const el = target instanceof Element ? target.closest("[data-token]") : null;
  const list = el?.getAttribute("data-token")?.trim();
  // a cell names its row's token and its column's: pointing at the cell lights both
  return list ? list : null;
}

/**
 * Link the tokens of a figure's picture: hover and focus light, leaving unlights; a tap (a
 * touch, which has no hover) lights until the next tap elsewhere.
 * @param {HTMLElement} picture
 */
export function linkTokens(picture) {
  /** @type {string|null} */
  let pinned = null;
  const show = (/** @type {string|null} */ list) => {
    if (list === null) return light(picture, pinned);
    const tokens = list.split(/\s+/);
    light(picture, tokens[0]);
    // a mark of two tokens (a cell) lights the second too, beside the first
    for (const token of tokens.slice(1))
      for (const el of picture.querySelectorAll(`[data-token~="${CSS.escape(token)}"]`)) el.classList.add("lit");
  };
  picture.addEventListener("pointerover", (e) => {
    if (/** @type {PointerEvent} */ (e).pointerType !== "touch") show(tokenAt(e.target));
  });
  picture.addEventListener("pointerleave", () => show(null));
  picture.addEventListener("focusin", (e) => show(tokenAt(e.target)));
  picture.addEventListener("focusout", () => show(null));
  picture.addEventListener("pointerup", (e) => {
    if (/** @type {PointerEvent} */ (e).pointerType !== "touch") return;
    const token = tokenAt(e.target);
    pinned = token === pinned ? null : token;
    show(pinned);
  });
}
