"""Every prose sentence "X's query scores Y's key at N" (zh: "X 的查询给 Y 的键打的…N") names
the kind of score, raw q·k or scaled q·k/√2, and N is that kind's value, as the page shows it."""

from __future__ import annotations

import re

from selfattn.head import load_head
from selfattn.numbers import fixed

HEAD = load_head()
RUN = HEAD.run()

# what a sentence says, up to the number; the words between the key and the number name the kind
SAYS = {
    "en": re.compile(r"(\w+)'s query scores (\w+)'s key at ([^0-9−]*?)(−?\d+\.\d+)"),
    # zh also says it short, once defined: "it→cat 的原始分是 1.72", "cat 问 ate，原始分是 0.72"
    "zh": re.compile(
        r"(\w+)(?: 的查询给 |→| 问 )(\w+)(?: 的键打的| 的|，)([^0-9−，。；]*?)(−?\d+\.\d+)"
    ),
}
KIND = {"en": {"raw": "R", "scaled": "S"}, "zh": {"原始": "R", "缩放后": "S"}}
# query-meets-keys, two-maps, score-row, the switch to scaled, walk-rows, transpose: seven
# such sentences in English today (F03's "the query scores cat's key" names no asker)
AT_LEAST = 7
# "the query of it scores…": the possessive "it's" read as "it is" to learners, so it is gone
OF = re.compile(r"the query of (\w+) scores")


def test_every_stated_score_is_the_kind_it_names(article):
    page = article.page
    lang = "zh" if page.evaluate("document.documentElement.lang").startswith("zh") else "en"
    prose = page.evaluate("[...document.querySelectorAll('article p')].map(p => p.textContent)")
    stated, wrong = 0, []
    for paragraph in prose:
        paragraph = OF.sub(r"\1's query scores", paragraph)
        for asker, key, words, number in SAYS[lang].findall(paragraph):
            stated += 1
            kinds = [name for word, name in KIND[lang].items() if word in words]
            if len(kinds) != 1:
                wrong.append(f"{asker} → {key} at {number}: names {kinds or 'no kind'}")
                continue
            value = RUN[kinds[0]][HEAD.index(asker), HEAD.index(key)]
            if fixed(value) != number:
                wrong.append(f"{asker} → {key}: {kinds[0]} {fixed(value)}, the page says {number}")
    assert stated >= AT_LEAST, f"only {stated} stated scores found: has the wording changed?"
    assert wrong == [], wrong
