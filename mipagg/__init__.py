"""mipagg: optimal and near-optimal microaggregation.

Heuristics (MDAV family, path + MHM, TSP-based) and exact methods (column
generation with certified lower bounds) behind one API::

    >>> import mipagg
    >>> inst = mipagg.from_array([[1, 2], [1, 3], [8, 9], [9, 9], [2, 2], [9, 8]])
    >>> mipagg.microaggregate(inst, k=3, method="mdav").partition.sizes.tolist()
    [3, 3]
"""

__version__ = "0.1.0"

from .errors import MipaggError, DataError, ParameterError, SolverError  # noqa: E402
from .instance import Instance, from_array, from_dataframe, read_csv  # noqa: E402
from .partition import Partition  # noqa: E402
from .univariate import mhm, optimal_univariate  # noqa: E402
from .api import RunResult, microaggregate  # noqa: E402

__all__ = [
    "__version__", "MipaggError", "DataError", "ParameterError", "SolverError",
    "Instance", "from_array", "from_dataframe", "read_csv", "Partition",
    "mhm", "optimal_univariate", "RunResult", "microaggregate",
]
