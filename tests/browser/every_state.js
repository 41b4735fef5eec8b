// One figure walked through the states its controls reach, inside the page: at rest, each
// slider at both ends and its middle, each choice, each switch on, each button pressed
// until it stops (or six times), each value handle at Home and End and each plane handle
// pushed to the four sides, every control focused as a keyboard reader leaves it. After
// each step and its redraw, `window[measure](id)` is called, once for each different
// picture; returns [[where, result], …].
// Called with [figure id, name of the measuring function on window].
async ([id, measure]) => {
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
  const look = async (where) => {
    await frame();
    const focused = [...stage.querySelectorAll("*")].indexOf(document.activeElement);
    const drawn = `${focused}|${window.scrollY}|${stage.innerHTML}`;
    if (!measured.has(drawn)) measured.set(drawn, window[measure](id));
    seen.push([where, measured.get(drawn)]);
  };
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
      for (const [end, v] of [
        ["min", el.min],
        ["middle", (Number(el.min) + Number(el.max)) / 2],
        ["max", el.max],
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
      for (let press = 1; press <= 6 && el.getAttribute("aria-disabled") !== "true"; press += 1) {
        el.click();
        await look(`${at} pressed ${press}×`);
      }
    } else if (el.hasAttribute("aria-valuemin")) {
      for (const end of ["Home", "End"]) {
        key(el, end);
        await look(`${at} at ${end}`);
      }
    } else {
      for (const arrow of ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]) {
        for (let n = 0; n < 8; n += 1) key(el, arrow, true);
        await look(`${at} pushed ${arrow}`);
      }
    }
  }
  return seen;
}
