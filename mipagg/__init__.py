"""mipagg: optimal and near-optimal microaggregation.

Heuristics (MDAV family, path + MHM, TSP-based) and exact methods (column
generation with certified lower bounds) behind one API::

    >>> import mipagg
    >>> inst = mipagg.from_array([[1, 2], [1, 3], [8, 9], [9, 9], [2, 2], [9, 8]])
    >>> mipagg.microaggregate(inst, k=3, method="mdav").partition.sizes.tolist()
    [3, 3]
"""

__version__ = "0.1.0"

from ._numba_cache import ensure_cache_dir  # noqa: E402
from .errors import DataError, MipaggError, ParameterError, SolverError  # noqa: E402

ensure_cache_dir()  # a read-only install without a writable $HOME still runs

# The rest loads on first use (PEP 562), so ``mipagg.cli`` starts without
# numpy and numba and a Ctrl-C during start-up reaches its clean handler.
_LAZY = {
    "Instance": "instance", "from_array": "instance", "from_dataframe": "instance",
    "read_csv": "instance", "Partition": "partition", "mhm": "univariate",
    "optimal_univariate": "univariate", "RunResult": "api", "microaggregate": "api",
    "certify": "certification", "CertifyResult": "certification",
    "register_method": "methods", "unregister_method": "methods",
}

__all__ = ["__version__", "MipaggError", "DataError", "ParameterError", "SolverError",
           *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'mipagg' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
