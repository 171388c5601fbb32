#!/usr/bin/env bash
# Build the documentation site into site/ (gitignored), from a fresh clone: MkDocs with the
# Material theme, and the API reference written by mkdocstrings from the docstrings of the source
# (read statically from python/: nothing is built or imported). --strict makes every warning an
# error: a broken link or anchor, a page missing from the nav, a reference that does not resolve.
# Then every public name (each public module's __all__) must have its entry in the reference.
#
# Signatures are formatted by ruff when it is importable (in .venv it is). Serve the site with
# `python -m http.server -d site` (search needs it served: a page opened as a file has none).
#
# The tools are requirements/docs.txt, installed with the exact versions of
# requirements/constraints.txt into .venv (made if missing), or into $MCPSTREAM_DOCS_VENV.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${MCPSTREAM_DOCS_VENV:-.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint requirements/constraints.txt --requirement requirements/docs.txt

# MkDocs 1.6 prints a notice about MkDocs 2 on every build otherwise.
NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict --clean --site-dir site
"$venv/bin/python" scripts/check_api_reference.py site/objects.inv
