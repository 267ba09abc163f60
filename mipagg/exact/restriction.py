"""The class of partitions a restricted ``bp`` run covers (``max_groups``,
``max_size``): one side of a proof split on the number of groups
(:mod:`~mipagg.exact.countsplit`)."""

from __future__ import annotations

from ..errors import ParameterError
from .master import count_limit
from .pricing.constraints import size_mask

__all__ = ["restriction", "describe", "least_groups"]


def least_groups(n: int, k: int) -> int:
    """The fewest groups of a partition of n records into groups of
    k..2k−1 records (seed 001 Proposition 2.2: some optimal partition is one).

    >>> least_groups(1080, 4), least_groups(7, 2)
    (155, 3)
    """
    return -(-n // (2 * k - 1))


def restriction(n: int, k: int, max_groups=None, max_size=None,
                count_row: bool = True) -> tuple[int | None, int]:
    """The master's count limit R (None: no count row) and the cluster
    sizes excluded (a bit mask, :func:`~.pricing.constraints.size_mask`)
    of a ``bp`` run with these options on n records; a limit outside its
    range raises :class:`~mipagg.errors.ParameterError`.

    >>> restriction(1080, 4), restriction(1080, 4, max_groups=269)
    ((None, 0), (269, 0))
    >>> restriction(834, 4, max_size=6)
    (208, 128)
    """
    least = least_groups(n, k)
    if max_groups is not None and not least <= max_groups <= n // k:
        raise ParameterError(f"max_groups must be in {least}..{n // k} for n = {n} and "
                             f"k = {k} (groups of k..2k-1 records), got {max_groups}")
    if max_size is not None and not k <= max_size <= 2 * k - 1:
        raise ParameterError(f"max_size must be in {k}..{2 * k - 1} for k = {k}, "
                             f"got {max_size}")
    if max_size is not None and max_size * (n // k) < n:
        raise ParameterError(f"no partition of {n} records into groups of {k}..{max_size} "
                             f"records exists (max_size = {max_size})")
    limit = max_groups if max_groups is not None else \
        (count_limit(n, k) if count_row else None)
    return limit, 0 if max_size is None else size_mask(range(max_size + 1, 2 * k))


def describe(max_groups=None, max_size=None) -> str | None:
    """The class a restricted run's bound covers, in words (None: all).

    >>> describe(269), describe(max_size=4), describe()
    ('partitions into at most 269 groups', 'partitions into groups of at most 4 records', None)
    >>> describe(269, 5)
    'partitions into at most 269 groups of at most 5 records'
    """
    if max_groups is None and max_size is None:
        return None
    many = "groups" if max_groups is None else f"at most {max_groups} groups"
    return f"partitions into {many}" + ("" if max_size is None else
                                        f" of at most {max_size} records")
