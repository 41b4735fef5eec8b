# Two commands on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
CHROMIUM := /usr/bin/chromium

.PHONY: serve test lint bench golden chromium clean test-notebook

# uv installs what pip would (the best version over every index, as pip chooses) in a
# fraction of pip's time: it links torch from its cache instead of unpacking 700 MB anew.
# It reads none of pip's settings, so .ci/uv_flags.py hands it the indexes pip is set to use
# here; when uv cannot be had or cannot resolve, the venv's own pip installs instead. Like
# pip, it compiles the bytecode at install: this machine sets PYTHONDONTWRITEBYTECODE, so
# otherwise every interpreter the tests start would compile torch again (1.3 → 2.7 s).
UV := $(VENV)/bin/uv
INSTALL = ($(PY) -m pip install -q uv && $(UV) pip install -q --compile-bytecode --python $(PY) \
    --index-strategy unsafe-best-match $$($(PY) .ci/uv_flags.py) $(1)) \
  || $(PY) -m pip install -q $(1)

$(VENV)/.serve: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(call INSTALL,-e .)
	touch $@

# axe-core checks accessibility in the browser tests; Biome lints and formats the page's
# ES modules and TypeScript checks their JSDoc types. npm puts all three inside .venv.
NODE_BIN := $(VENV)/node/node_modules/.bin

# torch (CPU wheel) so that the torch cases of `selfattn check` run, and Keras 3 for its Keras
# layers (read through torch; a few MB beside torch). One resolve for the
# package, its test extra and torch; npm fetches the node tools meanwhile (both wait on disk
# and network more than on the CPU). A clean clone skips the base install: the test extra
# holds the package.
$(VENV)/.test: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	npm install --silent --no-audit --no-fund --prefix $(VENV)/node axe-core@4.10.3 @biomejs/biome@2.6.8 typescript@5.9.3 & npm=$$!; \
	  $(call INSTALL,-e '.[test]' torch==2.13.0 keras==3.15.1) && wait $$npm
	touch $(VENV)/.serve $@

serve: $(VENV)/.serve
	$(PY) -m selfattn serve --port $(PORT)

# Browser tests need Debian's chromium (downloading a browser is not possible here);
# CJK fonts make Chinese screenshots legible. Installed when missing and we are root.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	  else \
	    echo "browser tests need $(CHROMIUM): run 'sudo apt-get install chromium fonts-noto-cjk'" >&2; exit 1; \
	  fi; \
	fi

# each linter in turn, stopping at the first that fails; radon: no function or method in
# the package with cyclomatic complexity over 15 (#32, #46), no module of selfattn/check with a
# maintainability index under 10 (radon's rank C), and a missing radon fails too
# biome and tsc read which files to lint from biome.json and jsconfig.json: the article's
# modules and the notebook widgets' (selfattn/notebook/js)
LINT = $(VENV)/bin/ruff check selfattn tests bench \
  && cc=$$($(VENV)/bin/radon cc -s -n C selfattn) && echo "$$cc" | awk '/^selfattn/ { file = $$1 } \
    /^ +[FM] / { n = substr($$NF, 2) + 0; if (n > 15) { print file ":" $$0; bad = 1 } } \
    END { if (bad) { print "cyclomatic complexity over 15 in selfattn"; exit 1 } }' \
  && mi=$$($(VENV)/bin/radon mi -n C selfattn/check) \
  && { [ -z "$$mi" ] || { echo "$$mi"; echo "maintainability index under 10 in selfattn/check"; false; }; } \
  && $(VENV)/bin/ruff format --check selfattn tests bench \
  && $(VENV)/bin/pyright \
  && $(NODE_BIN)/biome ci \
  && $(NODE_BIN)/tsc -p jsconfig.json

lint: $(VENV)/.test
	$(LINT)

# lint runs beside the tests rather than before them (its half minute of CPU, mostly
# pyright's, shares the two cores with the browser) and prints when it ends; either
# failing fails the target
test: $(VENV)/.test chromium
	($(LINT)) > $(VENV)/lint.log 2>&1 & lint=$$!; \
	  $(PY) -m pytest --durations=12; tests=$$?; \
	  wait $$lint; linted=$$?; cat $(VENV)/lint.log; \
	  [ $$tests = 0 ] && [ $$linted = 0 ]

# Refresh the builder's golden folder after an intended change to the output.
golden: $(VENV)/.test
	$(PY) -m tests.site.golden

# Everything the tools write: the venv, pytest's, ruff's and hypothesis' caches, bytecode.
clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name '*.egg-info' -type d -prune -exec rm -rf {} +

# Weight, long tasks, input-to-frame per figure, build and first-response times, and loading
# under throttled profiles (150 and 300 ms round trips, Fast 3G with a 4x slower CPU, 6x CPU).
bench: $(VENV)/.test chromium
	$(PY) -m bench.bench
	$(PY) -m bench.gradient_cost
	$(PY) -m bench.check_speed

# The notebook widgets in a real JupyterLab (a server, a kernel and a browser: about 20 s
# plus startup), kept out of `make test`; CI runs it on every change to selfattn/notebook.
$(VENV)/.notebook: pyproject.toml $(VENV)/.test
	$(call INSTALL,-e '.[notebook-test]')
	touch $@

test-notebook: $(VENV)/.notebook chromium
	SELFATTN_LIVE_NOTEBOOK=1 $(PY) -m pytest tests/notebook -s
