// The one module the notebook widgets load: picks the map (show_map) or the plane (show)
// by the model's `kind`. Bundled into a single ES module by selfattn/notebook/bundle.py.

import { renderMap } from "./map.js";
import { renderQK } from "./qk.js";
import { standaloneModel } from "./common.js";

/** anywidget's entry point. @param {{model: any, el: HTMLElement}} o */
function render({ model, el }) {
  return model.get("kind") === "map" ? renderMap({ model, el }) : renderQK({ model, el });
}

export { standaloneModel };
export default { render };
