"""Sphinx configuration of the API reference (``make docs``): every public
module of mipagg, rendered from its docstrings by autodoc/autosummary."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import mipagg  # noqa: E402

project = "mipagg"
release = version = mipagg.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.viewcode"]
autosummary_generate = True
# each object on the page of the module that defines it (not again where it is re-exported)
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
default_role = "py:obj"
nitpicky = False
html_theme = "alabaster"
html_theme_options = {"nosidebar": False}
exclude_patterns = ["_build"]
# make docs runs with -W: a module autodoc cannot import fails the build.  Two kinds of
# warnings are let through until the docstrings are cleaned up: reST markup in plain-text
# formulas (|C| reads as a substitution) and ambiguous short cross-references.
suppress_warnings = ["docutils", "ref.python"]
