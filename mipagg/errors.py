"""Exceptions and warnings raised by mipagg.

Every input problem raises a subclass of :class:`MipaggError`, itself a
``ValueError``, so callers can catch one type and the command line can turn
it into a one-line message and a non-zero exit status.
"""


class MipaggError(ValueError):
    """Base class of every error mipagg raises on bad input or bad options."""


class DataError(MipaggError):
    """The data cannot be microaggregated: missing/empty file, NaN, text, k > n."""


class ParameterError(MipaggError):
    """An option is invalid: k < 2, unknown method, option not used by a method."""


class SolverError(MipaggError):
    """An LP/MIP solver failed in a way that left no usable result."""


class ConstantColumnWarning(UserWarning):
    """A key column is constant; it is dropped from the distance computation."""
