// A player over a sequence of steps (tiles arriving, rows filling): back, play or pause, next,
// and back to the start, as buttons the keyboard reaches like any other; a figure with
// other controls to show may keep only some of them (`parts`). Playing goes by the clock:
// each frame asks for the step the time since Play has reached (`perSecond` steps a second),
// however many steps that skips, so a run takes the same wall time on a slow phone as on a
// laptop and the figure draws once a frame (F27's training). A reader who asked for no motion gets one step a
// press instead of a running picture (or, with `jump`, the last step at once: a training
// run, whose end is what the reader asked for).

import { t } from "../i18n.js";
import { button } from "./controls.js";
import { html } from "./dom.js";
import { still } from "./motion.js";

const WORDS = {
  start: { zh: "↺ 从头", en: "↺ Start" },
  back: { zh: "◀ 上一步", en: "◀ Back" },
  next: { zh: "下一步 ▶", en: "Next ▶" },
  play: { zh: "播放", en: "Play" },
  pause: { zh: "暂停", en: "Pause" },
};

/**
 * `at` reads the step the figure shows, `last` its last step, and `go` asks the figure for
 * a step (fig.set, which clamps it); `show(step, last)` from draw keeps the buttons true.
 * `words` renames buttons for the figure ("Next tile ▶"); `parts` names the buttons it shows.
 * @param {HTMLElement} parent
 * @param {{label: string, at: () => number, last: () => number, go: (step: number) => void,
 *   words?: Partial<Record<keyof typeof WORDS, {zh: string, en: string}>>, parts?: (keyof typeof WORDS)[],
 *   jump?: boolean, perSecond?: number}} o
 */
export function player(
  parent,
  { label, at, last, go, words = {}, parts = ["start", "back", "play", "next"], jump: toEnd = false, perSecond = 2 },
) {
  const say = (/** @type {keyof typeof WORDS} */ word) => t(words[word] ?? WORDS[word]);
  const group = html("div", { class: "player", role: "group", "aria-label": label });
  parent.append(group);
  let frame = 0;
  function stop() {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    play.el.textContent = say("play");
  }
  /** A step chosen by the reader stops the playing. @param {number} step */
  const jump = (step) => {
    stop();
    go(step);
  };
  const start = button(group, { label: say("start"), name: "start", onPress: () => jump(0) });
  const back = button(group, { label: say("back"), name: "back", onPress: () => jump(at() - 1) });
  const play = button(group, {
    label: say("play"),
    name: "play",
    onPress() {
      if (frame) return stop();
      if (at() >= last()) go(0);
      else if (still()) go(toEnd ? last() : at() + 1);
      if (still()) return;
      play.el.textContent = say("pause");
      const from = at(),
        t0 = performance.now();
      const run = (/** @type {number} */ now) => {
        // a frame's time can precede the press that asked for it: never before `from`
        const step = Math.min(last(), from + Math.max(0, Math.floor(((now - t0) * perSecond) / 1000)));
        if (step !== at()) go(step);
        if (at() >= last()) stop();
        else frame = requestAnimationFrame(run);
      };
      frame = requestAnimationFrame(run);
    },
  });
  const next = button(group, { label: say("next"), name: "next", onPress: () => jump(at() + 1) });
  for (const [word, b] of Object.entries({ start, back, play, next }))
    if (!parts.includes(/** @type {keyof typeof WORDS} */ (word))) b.el.remove();
  return {
    /** The reader took the step elsewhere (a handle on the picture): playing stops. */
    stop,
    /** @param {number} step @param {number} end the last step */
    show(step, end) {
      start.enable(step > 0);
      back.enable(step > 0);
      next.enable(step < end);
    },
  };
}
