// Light or dark before the first paint: the reader's saved choice, else the system's.
// A classic script (not a module) so it runs before the page is drawn.
(() => {
  let saved = null;
  try {
    saved = localStorage.getItem("selfattn-theme");
  } catch {
    // storage may be off (private mode): fall back to the system setting
  }
  const dark = saved ? saved === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  addEventListener("DOMContentLoaded", () => {
    const button = document.getElementById("theme");
    if (!button) return;
    const show = () => button.setAttribute("aria-pressed", String(document.documentElement.dataset.theme === "dark"));
    show();
    button.addEventListener("click", () => {
      const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      try {
        localStorage.setItem("selfattn-theme", next);
      } catch {
        // not remembered, still switched
      }
      show();
    });
  });
})();
