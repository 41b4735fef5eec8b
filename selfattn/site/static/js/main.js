// The page as written: each figure's module loaded from its own file. The build replaces
// this file with one chunk holding the first screen, which loads the rest as a second.

import { fromFile, startPage } from "./page.js";

startPage(fromFile);
