// The one module the notebook widgets load: picks the map (show_map), the heads (show_heads)
// or the plane (show)
// by the model's `kind`. Bundled into a single ES module by selfattn/notebook/bundle.py.

import { renderHeads } from "./heads.js";
import { renderMap } from "./map.js";
import { renderQK } from "./qk.js";
import { standaloneModel } from "./common.js";

/** anywidget's entry point. @param {{model: any, el: HTMLElement}} o */
function render({ model, el }) {
  const kind = model.get("kind");
  return (kind === "map" ? renderMap : kind === "heads" ? renderHeads : renderQK)({ model, el });
}

export { standaloneModel };
export default { render };
