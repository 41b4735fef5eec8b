// The one module the notebook widgets load: picks the map (show_map), the heads (show_heads),
// the comparison (show_compare),
// the lines (show_lines), several heads side by side (show_map(..., heads=[...])) or the plane (show)
// by the model's `kind`. Joined into a single ES module by selfattn/notebook/assets.py (selfattn/site/bundle.py).

import { hideStill, standaloneModel } from "./common.js";
import { renderCompare } from "./compare.js";
import { renderHeads } from "./heads.js";
import { renderLines } from "./lines.js";
import { renderMap } from "./map.js";
import { renderQK } from "./qk.js";
import { renderSeveral } from "./several.js";
import { renderTokens } from "./tokens.js";

/** anywidget's entry point. @param {{model: any, el: HTMLElement}} o */
function render({ model, el }) {
  const kind = model.get("kind");
  hideStill(el); // every view's still picture, printed after it by Python, hides under it
  const views = {
    map: renderMap,
    heads: renderHeads,
    compare: renderCompare,
    lines: renderLines,
    several: renderSeveral,
    tokens: renderTokens,
  };
  return (views[kind] ?? renderQK)({ model, el });
}

export { standaloneModel };
export default { render };
