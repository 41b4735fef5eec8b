// The page's language, and the string of a {zh, en} pair that the reader sees.

/** The page's language: "zh" or "en". */
export function language() {
  return document.documentElement.lang.startsWith("zh") ? "zh" : "en";
}

/** Pick a string for the page's language from {zh, en}. */
export function t(strings) {
  return strings[language()];
}
