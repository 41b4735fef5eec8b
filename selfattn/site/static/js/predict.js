// Predict, then see: at a few moments the figure waits, hidden, for the reader's guess.
// Any guess, the skip button, or simply using the figure's controls reveals it, and the
// feedback says in one sentence why the answer is what it is. The prose that states the
// answer waits too: the Markdown wraps it in <div data-answer-for="query-meets-keys">, and until the
// guess it keeps its place on the page (nothing jumps when it shows) but none of its words.

import { t } from "./i18n.js";
import { html } from "./kit/dom.js";

/**
 * @param {HTMLElement} el a started figure
 * @param {{answer: number, question: string, options: string[], why: string}} spec in the page's language
 */
export function addPrediction(el, { answer, question, options, why }) {
  const feedback = html("p", { class: "predict-feedback", role: "status" });
  const answers = /** @type {HTMLElement[]} */ ([...document.querySelectorAll(`[data-answer-for="${el.id}"]`)]);
  const reveal = () => {
    el.classList.remove("veiled");
    for (const text of answers) {
      text.style.visibility = "";
      text.removeAttribute("data-veiled");
    }
    for (const b of buttons) b.disabled = true;
    skip.hidden = true;
  };
  const buttons = options.map((option, i) =>
    Object.assign(html("button", { type: "button", class: "guess", text: option }), {
      onclick: () => {
        reveal();
        buttons[i].setAttribute("aria-pressed", "true");
        buttons[answer].classList.add("right");
        // the answer is quoted whole, so an option that opens with a capital reads as one
        feedback.textContent =
          i === answer
            ? t({ zh: `猜对了。${why}`, en: `Right. ${why}` })
            : t({
                zh: `不对，答案是“${options[answer]}”。${why}`,
                en: `Not quite. The answer: “${options[answer]}”. ${why}`,
              });
      },
    }),
  );
  const skip = html("button", {
    type: "button",
    class: "skip",
    text: t({ zh: "跳过，直接看", en: "Skip and show me" }),
  });
  skip.addEventListener("click", reveal);
  const box = html(
    "div",
    { class: "predict", role: "group", "aria-label": t({ zh: "先猜再看", en: "Predict, then see" }) },
    html("p", { class: "predict-question", text: question }),
    html("div", { class: "guesses" }, ...buttons, skip),
    feedback,
  );
  const stage = /** @type {HTMLElement} */ (el.querySelector(".stage"));
  stage.before(box);
  // the picture and its caption would give the answer away: hidden, with a word on why
  stage.dataset.veil = t({
    zh: "猜过之后，图和图下的讲解就会出现",
    en: "The picture, and the text after it, appear once you guess",
  });
  el.classList.add("veiled");
  // set through the CSSOM, which the page's Content-Security-Policy allows (a style
  // attribute in the HTML it would refuse); the stylesheet's print rule cannot reach it,
  // so printing reveals, as it does the picture
  for (const text of answers) {
    text.style.visibility = "hidden";
    text.dataset.veiled = "";
  }
  window.addEventListener("beforeprint", reveal, { once: true });
  // reaching for a control is an answer too: the reader wants to see. On pointerup, not
  // pointerdown: the picture coming back moves the controls, and a press that ends
  // elsewhere than it began is no click
  for (const type of ["pointerup", "keydown", "input"]) stage.addEventListener(type, reveal, { once: true });
}
