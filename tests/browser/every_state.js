// One figure walked through the states its controls reach, inside the page: at rest, each
// slider at both ends, its middle and one to three pages up from its start (as Home and
// Page Up put it), each choice, each option of a select, each switch on, each button
// pressed until it stops (or eight times), each value handle at Home, one to three pages
// up and End, each plane handle pushed to the four sides, every control focused as a
// keyboard reader leaves it; then, from the state at load again, each of `states` (partial
// states a control reaches in steps too many to walk by key: every step of a training run,
// every θ), set and drawn at once. After each step and its redraw, `window[measure](id)` is
// called (`window[measureStates](id)` after each of `states`), once for each different
// picture; returns [[where, result], …]. Called with [figure id, name of the measuring
// function on window, and optionally states and the name of the function measuring them].
async ([id, measure, states = [], measureStates = measure]) => {
  const figure = document.getElementById(id);
  figure.scrollIntoView({ block: "center" });
  // a figure draws in the animation frame its set() asked for, which runs before one asked
  // for after it: one frame is enough to see the redraw (the same hits as two, on every state)
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true }));
  const key = (el, name, shiftKey = false) =>
    el.dispatchEvent(new KeyboardEvent("keydown", { key: name, shiftKey, bubbles: true, cancelable: true }));
  const seen = [];
  // a state drawn before (a switch clicked back, a button that stopped moving) is not
  // measured again: what it drew, the focused control and the scroll say it is the same
  const stage = figure.querySelector(".stage");
  const measured = new Map();
  const measureNow = (where, by = measure) => {
    const focused = [...stage.querySelectorAll("*")].indexOf(document.activeElement);
    const drawn = `${by}|${focused}|${window.scrollY}|${stage.innerHTML}`;
    if (!measured.has(drawn)) measured.set(drawn, window[by](id));
    seen.push([where, measured.get(drawn)]);
  };
  const look = async (where) => {
    await frame();
    measureNow(where);
  };
  const initial = JSON.parse(JSON.stringify(figure.figure.state));
  figure.querySelector(".skip")?.click();
  await look("at rest");
  const controls = [
    ...figure.querySelectorAll(".stage input, .stage button, .stage select, .stage [role=slider][tabindex]"),
  ];
  for (const [k, el] of controls.entries()) {
    if (!el.checkVisibility() || el.disabled) continue;
    const at = `control ${k} (${el.getAttribute("name") || el.getAttribute("aria-label") || el.tagName})`;
    el.focus({ preventScroll: true });
    if (el instanceof HTMLInputElement && el.type === "range") {
      // Page Up moves a range by a tenth of it or one step, whichever is more (as Chromium
      // does); setting the value rounds it to a step as the key does
      const [min, max] = [Number(el.min), Number(el.max)];
      const page = Math.max((max - min) / 10, Number(el.step) || 1);
      for (const [end, v] of [
        ["min", min],
        ["1 page up", Math.min(max, min + page)],
        ["2 pages up", Math.min(max, min + 2 * page)],
        ["3 pages up", Math.min(max, min + 3 * page)],
        ["middle", (min + max) / 2],
        ["max", max],
      ]) {
        el.value = String(v);
        fire(el, "input");
        fire(el, "change");
        await look(`${at} at ${end}`);
      }
    } else if (el instanceof HTMLInputElement && (el.type === "radio" || el.type === "checkbox")) {
      el.click();
      await look(`${at} clicked`);
    } else if (el instanceof HTMLSelectElement) {
      for (let i = 0; i < el.options.length; i += 1) {
        el.selectedIndex = i;
        fire(el, "input");
        fire(el, "change");
        await look(`${at} option ${i}`);
      }
    } else if (el instanceof HTMLButtonElement) {
      for (let press = 1; press <= 8 && el.getAttribute("aria-disabled") !== "true"; press += 1) {
        el.click();
        await look(`${at} pressed ${press}×`);
      }
    } else if (el.hasAttribute("aria-valuemin")) {
      for (const [n, end] of ["Home", "PageUp", "PageUp", "PageUp", "End"].entries()) {
        key(el, end);
        await look(`${at} after ${end}${n > 0 && n < 4 ? ` ${n}` : ""}`);
      }
    } else {
      for (const arrow of ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]) {
        for (let n = 0; n < 8; n += 1) key(el, arrow, true);
        await look(`${at} pushed ${arrow}`);
      }
    }
  }
  if (states.length > 0) {
    document.activeElement?.blur();
    figure.figure.set(initial);
    for (const partial of states) {
      figure.figure.set(partial);
      figure.figure.redraw();
      measureNow(
        Object.entries(partial)
          .map(([k, v]) => `${k} ${v}`)
          .join(", "),
        measureStates,
      );
    }
  }
  return seen;
}
