// Predict, then see: at a few moments the figure waits, blurred, for the reader's guess.
// Any guess, the skip button, or simply using the figure's controls reveals it.

import { t } from "./i18n.js";
import { html } from "./kit/dom.js";

/**
 * @param {HTMLElement} el a started figure
 * @param {{answer: number, question: string, options: string[]}} spec in the page's language
 */
export function addPrediction(el, { answer, question, options }) {
  const feedback = html("p", { class: "predict-feedback", role: "status" });
  const reveal = () => {
    el.classList.remove("veiled");
    for (const b of buttons) b.disabled = true;
    skip.hidden = true;
  };
  const buttons = options.map((option, i) =>
    Object.assign(html("button", { type: "button", class: "guess", text: option }), {
      onclick: () => {
        reveal();
        buttons[i].setAttribute("aria-pressed", "true");
        buttons[answer].classList.add("right");
        feedback.textContent =
          i === answer
            ? t({ zh: "猜对了。", en: "Right." })
            : t({ zh: `不对，答案是：${options[answer]}。`, en: `Not quite: the answer is ${options[answer]}.` });
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
  el.querySelector(".stage").before(box);
  el.classList.add("veiled");
  // reaching for a control is an answer too: the reader wants to see
  const stage = el.querySelector(".stage");
  for (const type of ["pointerdown", "keydown", "input"]) stage.addEventListener(type, reveal, { once: true });
}
