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
  // answered, the box folds to one line: the question, the reader's pick marked ✗ and the
  // answer ✓, and a "why" that opens the reason (a paragraph would break the text budget);
  // the reason is still read out to a screen reader, as a status, without the click
  const feedback = html("p", { class: "predict-feedback visually-hidden", role: "status", id: `${el.id}-why` });
  const pick = html("span", { class: "predict-pick" });
  const more = html("button", {
    type: "button",
    class: "why",
    "aria-expanded": "false",
    "aria-controls": feedback.id,
    text: t({ zh: "为什么", en: "why" }),
  });
  more.hidden = true;
  more.addEventListener("click", () => {
    const closed = feedback.classList.toggle("visually-hidden");
    more.setAttribute("aria-expanded", String(!closed));
  });
  const answers = /** @type {HTMLElement[]} */ ([...document.querySelectorAll(`[data-answer-for="${el.id}"]`)]);
  const mark = (/** @type {string} */ sign, /** @type {number} */ i) => html("span", { class: sign, text: options[i] });
  /** @param {number} [i] the reader's guess; none when skipped or when a control revealed */
  const reveal = (i) => {
    if (box.classList.contains("answered")) return;
    box.classList.add("answered");
    el.classList.remove("veiled");
    for (const text of answers) {
      text.style.visibility = "";
      text.removeAttribute("data-veiled");
    }
    for (const b of buttons) b.disabled = true;
    skip.hidden = true;
    more.hidden = false;
    buttons[answer].classList.add("right");
    if (i !== undefined && i !== answer) pick.append(mark("wrong", i), " ");
    pick.append(mark("right", answer));
    // the answer is quoted whole, so an option that opens with a capital reads as one
    const told = t({ zh: `答案是“${options[answer]}”。`, en: `The answer: “${options[answer]}”. ` });
    const lead = i === undefined ? told : t({ zh: "不对，", en: "Not quite. " }) + told;
    feedback.textContent = (i === answer ? t({ zh: "猜对了。", en: "Right. " }) : lead) + why;
  };
  const buttons = options.map((option, i) =>
    Object.assign(html("button", { type: "button", class: "guess", text: option }), {
      onclick: () => {
        buttons[i].setAttribute("aria-pressed", "true");
        reveal(i);
      },
    }),
  );
  const skip = html("button", {
    type: "button",
    class: "skip",
    text: t({ zh: "跳过，直接看", en: "Skip and show me" }),
  });
  skip.addEventListener("click", () => reveal());
  const box = html(
    "div",
    { class: "predict", role: "group", "aria-label": t({ zh: "先猜再看", en: "Predict, then see" }) },
    html("p", { class: "predict-question" }, html("span", { text: question, title: question }), " ", pick, " ", more),
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
  window.addEventListener("beforeprint", () => reveal(), { once: true });
  // reaching for a control is an answer too: the reader wants to see. On pointerup, not
  // pointerdown: the picture coming back moves the controls, and a press that ends
  // elsewhere than it began is no click
  for (const type of ["pointerup", "keydown", "input"]) stage.addEventListener(type, () => reveal(), { once: true });
}
