"""pip's index settings on this machine, as uv's flags: uv reads none of pip's configuration,
and without it would not see the indexes and wheels this machine keeps on its own disk.

Prints the flags on one line for the Makefile's install; prints nothing when pip has none.
"""

import shlex
import subprocess
import sys

# pip's setting → uv's flag (the same meaning; uv takes each value as its own flag)
FLAGS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
}


def main() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
    ).stdout
    pairs: list[tuple[str, str]] = []  # pip lists a setting once per place it is set
    for line in listed.splitlines():  # global.extra-index-url='file:///a file:///b'
        key, _, value = line.partition("=")
        flag = FLAGS.get(key.rpartition(".")[2])
        for each in shlex.split(value)[0].split() if flag and value else []:
            if (flag, each) not in pairs:
                pairs.append((flag, each))
    print(shlex.join(part for pair in pairs for part in pair))


main()
