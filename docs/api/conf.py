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
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
default_role = "py:obj"
nitpicky = False
html_theme = "alabaster"
html_theme_options = {"nosidebar": False}
exclude_patterns = ["_build"]
