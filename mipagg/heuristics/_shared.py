"""Loads and stores of flags that another thread reads or writes meanwhile.

The two-thread kernels of :mod:`mipagg.heuristics._twocore` publish small
values (a guess, a counter, "done") that the other thread polls.  A plain
array access gives the compiler the right to keep the value in a register
(a polling loop would never see a change) or to move it across the writes
it is meant to announce.  These are int64 loads with *acquire* and stores
with *release* ordering (C++ memory model, as LLVM implements it): what a
thread wrote before a release store is seen by the thread whose acquire
load reads that store.  On x86 both are plain moves.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def load(typingctx, arr, i):
    """``arr[i]`` (int64 array) read from memory with acquire ordering."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(arr, i), codegen


@intrinsic
def store(typingctx, arr, i, v):
    """``arr[i] = v`` (int64 array) written with release ordering."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, ptr, "release", 8)
        return context.get_dummy_value()

    return types.none(arr, i, v), codegen
