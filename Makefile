# The two commands a new user needs: `make demo` and `make test`. Both create .venv when it is
# missing and install the project (with its test extras) into it first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint typecheck unit venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks dashboards
	$(BIN)/ruff format --check src tests benchmarks dashboards

typecheck: $(STAMP)
	$(BIN)/mypy src

# pytest exits 5 when it collected no tests; that is not a failure of the suite.
unit: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS) || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest: no tests collected"; [ $$rc -eq 5 ] || exit $$rc; }

test: lint typecheck unit

demo: $(STAMP)
	$(BIN)/tqe-monitor demo $(DEMO_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build dist src/*.egg-info
