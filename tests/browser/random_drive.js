// The random drive of one figure, run inside the page: a seeded sequence of key presses
// and pointer drags on the figure's own controls, with the read-outs and state taken every
// tenth step after the redraw. Called with [figure id, seed, steps, keys]; returns the
// snapshots for the test to check. Events made by a script are untrusted, so what a key
// does to a native control (a range steps, a radio moves, a button clicks) is done here as
// the browser would, and a custom control (a handle, a cell) gets the keydown it listens to.
async ([id, seed, steps, keys]) => {
  const figure = document.getElementById(id);
  figure.scrollIntoView({ block: "center" });
  // mulberry32: a small seeded generator, so a failing drive repeats exactly
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const fire = (el, type) => el.dispatchEvent(new Event(type, { bubbles: true }));

  const skip = figure.querySelector(".skip");
  if (skip) skip.click();
  const controls = [
    ...figure.querySelectorAll(
      ".stage input, .stage button, .stage select, .stage [tabindex='0']",
    ),
  ];
  const handles = [...figure.querySelectorAll(".handle")];

  // A synthetic pointer holds no buttons, so the browser would not capture it; the capture
  // a drag sets is kept here instead, for the synthetic pointer alone.
  const POINTER = 97;
  const captured = new Set();
  const proto = Element.prototype;
  const real = {
    set: proto.setPointerCapture,
    has: proto.hasPointerCapture,
    release: proto.releasePointerCapture,
  };
  proto.setPointerCapture = function (pointerId) {
    return pointerId === POINTER ? void captured.add(this) : real.set.call(this, pointerId);
  };
  proto.hasPointerCapture = function (pointerId) {
    return pointerId === POINTER ? captured.has(this) : real.has.call(this, pointerId);
  };
  proto.releasePointerCapture = function (pointerId) {
    return pointerId === POINTER ? void captured.delete(this) : real.release.call(this, pointerId);
  };
  const pointer = (el, type, x, y) =>
    el.dispatchEvent(
      new PointerEvent(type, {
        bubbles: true,
        cancelable: true,
        composed: true,
        pointerId: POINTER,
        pointerType: "mouse",
        isPrimary: true,
        buttons: type === "pointerup" ? 0 : 1,
        clientX: x,
        clientY: y,
      }),
    );
  const drag = (handle) => {
    const box = handle.getBoundingClientRect();
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const knob = handle.querySelector(".knob") ?? handle;
    pointer(knob, "pointerdown", x, y);
    // captured: the moves and the release go to the element holding the pointer
    const target = () => [...captured][0] ?? document.elementFromPoint(x, y) ?? knob;
    for (let k = 0; k < 4; k++) {
      pointer(target(), "pointermove", box.x + (random() * 600 - 300), box.y + (random() * 600 - 300));
    }
    pointer(target(), "pointerup", x, y);
  };

  const press = (el, key) => {
    const shift = key.startsWith("Shift+");
    const name = shift ? key.slice(6) : key;
    el.focus();
    const native = el instanceof HTMLInputElement || el instanceof HTMLButtonElement || el instanceof HTMLSelectElement;
    if (!native) {
      el.dispatchEvent(new KeyboardEvent("keydown", { key: name, shiftKey: shift, bubbles: true, cancelable: true }));
      el.dispatchEvent(new KeyboardEvent("keyup", { key: name, shiftKey: shift, bubbles: true }));
      return;
    }
    const up = ["ArrowRight", "ArrowUp", "PageUp"].includes(name);
    const down = ["ArrowLeft", "ArrowDown", "PageDown"].includes(name);
    if (el instanceof HTMLButtonElement) {
      if (name === "Enter" || name === " ") el.click();
    } else if (el instanceof HTMLSelectElement) {
      const i = el.selectedIndex + (up ? 1 : down ? -1 : 0);
      const to = name === "Home" ? 0 : name === "End" ? el.options.length - 1 : i;
      if (to !== el.selectedIndex && to >= 0 && to < el.options.length) {
        el.selectedIndex = to;
        fire(el, "input");
        fire(el, "change");
      }
    } else if (el.type === "range") {
      const before = el.value;
      const by = name.startsWith("Page") ? Math.max(1, Math.round((el.max - el.min) / el.step / 10)) : 1;
      if (up) el.stepUp(by);
      if (down) el.stepDown(by);
      if (name === "Home") el.value = el.min;
      if (name === "End") el.value = el.max;
      if (el.value !== before) {
        fire(el, "input");
        fire(el, "change");
      }
    } else if (el.type === "radio") {
      const group = [...document.querySelectorAll(`input[type=radio][name="${el.name}"]`)].filter((r) => !r.disabled);
      const at = group.indexOf(el);
      const to = up || down ? group[(at + (up ? 1 : -1) + group.length) % group.length] : name === " " ? el : null;
      if (to && !to.checked) to.click();
      to?.focus();
    } else if (el.type === "checkbox") {
      if (name === " ") el.click();
    }
  };

  const snapshot = (step) => ({
    step,
    shown: [...figure.querySelectorAll("[data-readout]")].map((e) => [
      e.dataset.readout,
      e.textContent,
      e.getClientRects().length > 0,
    ]),
    state: JSON.parse(JSON.stringify(figure.figure.state)),
  });

  const snapshots = [];
  let acted = 0;
  try {
    for (let step = 0; step < steps; step++) {
      if (handles.length && random() < 0.15) {
        drag(pick(handles));
        acted++;
      } else {
        const control = pick(controls);
        const key = pick(keys);
        if (control.checkVisibility() && !control.disabled && control.getAttribute("aria-disabled") !== "true") {
          press(control, key);
          acted++;
        }
      }
      if (step % 10 === 9) {
        await frame();
        snapshots.push(snapshot(step));
      }
    }
    await frame();
    snapshots.push(snapshot(steps));
  } finally {
    Object.assign(proto, { setPointerCapture: real.set, hasPointerCapture: real.has, releasePointerCapture: real.release });
  }
  return { controls: controls.length, acted, snapshots };
}
