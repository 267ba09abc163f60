PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-latest test-latest-suite test-latest-scripts latest-install test-slow \
        test-crosscheck \
        bench clean cbc

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mipagg demo

# CBC, the second MIP solver the tests drive through Pyomo (--solver cbc): installed
# with apt-get when running as root on Debian/Ubuntu; otherwise its tests are skipped.
cbc:
	@command -v cbc >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && apt-get update -qq && apt-get install -y -qq coinor-cbc >/dev/null; } \
	  || echo "CBC not installed (apt-get install coinor-cbc): its solver tests are skipped"

# The default suite on every core, at most 4 (pytest-xdist; PYTEST_WORKERS=0 runs it in one
# process); each worker compiles the numba kernels into a cache of its own
# (tests/conftest.py), so more workers mostly repeat the compilation.
PYTEST_WORKERS ?= auto
PYTEST_XDIST   ?= -n $(PYTEST_WORKERS) --maxprocesses 4 --dist loadfile
test: $(STAMP) cbc
	$(BIN)/python -m pytest $(PYTEST_XDIST)

# The project as a user installs it: plain `pip install '.[dev]'` (not editable, no
# constraints.txt, the newest releases) into its own venv; the default suite and every
# script's --quick slice run from a scratch directory, so the installed copy is tested.
LATEST  ?= .venv-latest
DATA    ?= $(abspath ../shared/data)
SCRATCH := $(abspath $(LATEST))/scratch

$(LATEST)/bin/python:
	$(PYTHON) -m venv $(LATEST)

latest-install: | $(LATEST)/bin/python
	$(LATEST)/bin/pip install --quiet --upgrade pip
	$(LATEST)/bin/pip install --quiet --upgrade '.[dev]'
	$(LATEST)/bin/pip install --quiet --force-reinstall --no-deps .
	rm -rf $(SCRATCH) && mkdir -p $(SCRATCH)

test-latest-suite: latest-install
	cd $(SCRATCH) && $(abspath $(LATEST))/bin/python -m pytest -p no:cacheprovider \
	    $(PYTEST_XDIST) -c $(CURDIR)/pyproject.toml \
	    --rootdir $(CURDIR) $(CURDIR)/tests

test-latest-scripts: latest-install
	cd $(SCRATCH) && for f in $(CURDIR)/scripts/*.py; do \
	    grep -q -- --quick $$f || continue; \
	    case $$f in *casc.py) extra="--cells census:3 --solutions $(SCRATCH)/solutions";; \
	                *) extra="--quiet";; esac; \
	    echo "== $$f --quick $$extra"; \
	    $(abspath $(LATEST))/bin/python $$f $(DATA) --quick --out $(SCRATCH)/results $$extra \
	        || exit 1; \
	done

test-latest: test-latest-suite test-latest-scripts

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow

# The comparisons with an independent implementation that are marked slow only for
# their set-up cost (microagg1d compiles its kernels at import: ~2 minutes uncached).
test-crosscheck: $(STAMP)
	$(BIN)/python -m pytest -m slow tests/test_univariate.py

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) $(LATEST) build *.egg-info .pytest_cache

# ruff and mypy over mipagg/ (settings in pyproject.toml); make test runs them first.
.PHONY: lint docs
lint: $(STAMP)
	$(BIN)/ruff check mipagg
	$(BIN)/mypy
test: lint

# API reference from the docstrings (Sphinx autodoc) -> build/api/index.html
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -q -W --keep-going -b html docs/api build/api
