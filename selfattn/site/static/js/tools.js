// One quiet menu per figure (⋯): a link to its current state, and its picture and numbers to keep.

import { download, figureNumbers, pngFromSvg, standaloneSvg } from "./export.js";
import { t } from "./i18n.js";
import { html } from "./kit/dom.js";
import { hashForState } from "./share.js";

/**
 * Add the tools to a started figure.
 * @param {HTMLElement} el a figure element with el.figure
 */
export function addTools(el) {
  const status = html("span", { class: "tool-status", role: "status" });
  const button = (label, title, action) => {
    const b = html("button", { type: "button", class: "tool", title, text: label });
    b.addEventListener("click", () => {
      Promise.resolve()
        .then(action)
        .catch((error) => {
          status.textContent = t({ zh: "没有成功", en: "That did not work" });
          console.warn(error);
        });
    });
    return b;
  };
  const picture = () => /** @type {SVGSVGElement} */ (el.querySelector(".stage svg"));
  const menu = html(
    "div",
    {
      class: "menu-items",
      role: "group",
      "aria-label": t({
        zh: `${el.dataset.label ?? el.id} 的分享与导出`,
        en: `Share and export ${el.dataset.label ?? el.id}`,
      }),
    },
    button(
      t({ zh: "链接", en: "Link" }),
      t({ zh: "把这个状态放进地址", en: "Put this state in the address" }),
      async () => {
        const url = new URL(location.href);
        url.hash = hashForState(el.id, el.figure.state);
        history.replaceState(null, "", url);
        try {
          await navigator.clipboard.writeText(url.href);
          status.textContent = t({ zh: "链接已复制", en: "Link copied" });
        } catch {
          status.textContent = t({ zh: "链接在地址栏里", en: "The link is in the address bar" });
        }
      },
    ),
    button("SVG", t({ zh: "下载图片（SVG）", en: "Download the picture (SVG)" }), () => {
      download(new Blob([standaloneSvg(picture())], { type: "image/svg+xml" }), `${el.id}.svg`);
    }),
    button("PNG", t({ zh: "下载图片（PNG）", en: "Download the picture (PNG)" }), async () => {
      const svg = picture();
      const box = svg.viewBox.baseVal;
      download(await pngFromSvg(standaloneSvg(svg), box.width, box.height), `${el.id}.png`);
    }),
    button("JSON", t({ zh: "下载数值（JSON）", en: "Download the numbers (JSON)" }), () => {
      const text = JSON.stringify(figureNumbers(el), null, 2);
      download(new Blob([text], { type: "application/json" }), `${el.id}.json`);
    }),
    status,
  );
  const summary = html(
    "summary",
    { title: t({ zh: "分享与导出", en: "Share and export" }) },
    html("span", { "aria-hidden": "true", text: "⋯" }),
    html("span", {
      class: "visually-hidden",
      text: t({ zh: `${el.dataset.label ?? el.id} 的分享与导出`, en: `Share and export ${el.dataset.label ?? el.id}` }),
    }),
  );
  el.querySelector("figcaption").before(html("details", { class: "figure-tools" }, summary, menu));
}
