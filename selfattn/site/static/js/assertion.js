// An assertion's verdict on a figure's current numbers: a mark and a word, never colour
// alone, and red only when it fails (F26 draws each check's code and verdict in its picture).

/** The verdict words, in the page's language. */
export const VERDICT = {
  pass: { zh: "✓ 通过", en: "✓ passes" },
  fail: { zh: "✗ 失败", en: "✗ fails" },
};
