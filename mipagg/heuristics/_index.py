"""Exact spatial queries over the remaining records, for the MDAV family at large n.

The MDAV-like heuristics ask three questions of the records not yet grouped:
the record farthest from their centroid, the record farthest from a record,
and the m records nearest to a record.  The readable references
(:mod:`mipagg.heuristics._common`) answer each by a scan of all remaining
records, so a run costs O(n²/k) distance computations.  The compiled
structures here answer the same questions with the **same answers, ties
included**, in far fewer:

* a k-d tree over all records (median split on the widest coordinate, leaves
  of ``LEAF_SIZE``), whose nodes keep, over their *remaining* records, a
  count, a tight bounding box, a bounding ball around a fixed centre and the
  largest distance to a reference point c₀; removing a record updates the
  leaf and its ancestors (O(p · depth)); the records are copied in tree
  order, transposed, so that a leaf is scanned in contiguous memory; once
  ``REBUILD`` of the records it was built on remain, the tree is rebuilt in
  place over the remaining ones (balanced again, tight balls, c₀ their
  centroid: about 1.5× less time per query on SimU, docs/bench/large.md);
* upper bounds for "farthest": box, ball, the norm bound and the farthest
  point of the intersection of the node's ball with the ball around c₀ that
  holds its records; lower bounds for "nearest": box, ball and norm;
* the records in decreasing distance to a reference point c₀, skipping removed
  ones, for "farthest from the centroid": a record y can only beat the current
  best if ‖y − c₀‖ + ‖c − c₀‖ reaches it (the centroid c moves little between
  queries; c₀ is reset to c when the scans grow long).

Exactness.  Every candidate distance is computed by the loop of
:func:`mipagg.heuristics._common.sqdist_to` (same point, same coordinate
order), and ties go to the lowest row index as in the references (the
remaining rows are kept in ascending order there).  Box bounds are computed
with the same floating-point operations, so by monotonicity of rounding they
bound the computed distances exactly; ball bounds carry a relative margin
(1e-10) far above their rounding error.  The reference centroid is a
sequential floating-point sum over the remaining rows; the index keeps a
running sum instead, with a rigorous bound on the difference (Higham,
*Accuracy and Stability of Numerical Algorithms*, §4.2).  Every record whose
distance is within that bound of the best is a candidate; when two candidates
are not identical rows, the centroid is recomputed exactly as the reference
does (O(n·p), rare: it needs a near tie at the top) and decides.

Development note: the kernels of ``mdav.py``, ``fixed.py``, ``paths.py`` and
``vmdav.py`` call these functions and numba caches them per module
(``cache=True``); after editing this module, delete
``mipagg/heuristics/__pycache__/*.nb[ic]`` (numba does not notice that a
callee in another module changed).  A constant passed to another kernel is
written ``np.int64(0)``, ``np.bool_(False)``: a bare ``0`` (also ``i = 0``
before ``i += 1``) is typed as a literal, and numba compiles the callee once
more for it (``tests/heuristics/test_fast_kernels.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _shared as sh

LEAF_SIZE = 64
U = 2.0 ** -53          # unit roundoff of float64
BALL_MARGIN = 1e-10     # relative safety margin of the ball bounds
STACK = 4096            # depth-first stack (tree depth is about log2(n / LEAF_SIZE))


@njit(cache=True, inline="always")
def sqdist_row(X, i, q):
    """The distance loop of ``_common._sqdist_rows`` for one row."""
    s = 0.0
    for j in range(X.shape[1]):
        d = X[i, j] - q[j]
        s += d * d
    return s


@njit(cache=True, inline="always")
def sqdist_col(XT, t, q):
    """The same loop for column ``t`` of the transposed records ``XT``."""
    s = 0.0
    for j in range(XT.shape[0]):
        d = XT[j, t] - q[j]
        s += d * d
    return s


@njit(cache=True, inline="always")
def leaf_sqdist(XT, a, b, q, buf):
    """``buf[:b−a]`` = the distances of columns a..b−1 of ``XT`` to ``q``, each
    summed over the coordinates in order like :func:`sqdist_row` (the same
    numbers), one coordinate at a time over the leaf (vectorizes)."""
    nl = b - a
    for t in range(nl):
        buf[t] = 0.0
    for j in range(XT.shape[0]):
        qj = q[j]
        row = XT[j, a:b]
        for t in range(nl):
            d = row[t] - qj
            buf[t] += d * d


@njit(cache=True, inline="always")
def sqdist_pts(a, b):
    s = 0.0
    for j in range(a.shape[0]):
        d = a[j] - b[j]
        s += d * d
    return s


@njit(cache=True)
def _select(X, perm, lo, hi, kth, dim):
    """Reorder ``perm[lo:hi]`` so that ``perm[kth]`` holds the kth smallest key
    ``X[., dim]``, smaller keys before it and larger after (Hoare/Wirth)."""
    left = lo
    right = hi - 1
    while right > left:
        pivot = X[perm[(left + right) >> 1], dim]
        i = left
        j = right
        while i <= j:
            while X[perm[i], dim] < pivot:
                i += 1
            while X[perm[j], dim] > pivot:
                j -= 1
            if i <= j:
                t = perm[i]
                perm[i] = perm[j]
                perm[j] = t
                i += 1
                j -= 1
        if kth <= j:
            right = j
        elif kth >= i:
            left = i
        else:
            break


@njit(cache=True)
def _count_nodes(n, leaf_size):
    """The number of nodes of the tree over n records (median splits)."""
    sizes = np.empty(STACK, dtype=np.int64)
    sizes[0] = n
    top = 1
    nn = 0
    while top > 0:
        top -= 1
        m = sizes[top]
        nn += 1
        if m > leaf_size:
            sizes[top] = m // 2
            sizes[top + 1] = m - m // 2
            top += 2
    return nn


@njit(cache=True)
def build_tree(X, leaf_size):
    """The k-d tree over all rows of ``X`` (every record remaining)."""
    n, p = X.shape
    # at least two leaves: a one-node tree's bound arrays (views of NB) would be
    # contiguous, so numba would compile every kernel a second time for them,
    # and two cached versions of a parallel kernel crash numba (_twocore)
    leaf_size = max(1, min(leaf_size, n // 2))
    nn = _count_nodes(n, leaf_size)
    # the bounds of a node side by side in memory (siblings are adjacent too):
    # box lo, hi, ball centre, centre − c0, radius, max ‖x − c0‖², ‖centre − c0‖²
    NB = np.zeros((nn, 4 * p + 3))
    T = (np.arange(n), np.zeros(nn, dtype=np.int64), np.zeros(nn, dtype=np.int64),
         np.full(nn, -1, dtype=np.int64), np.full(nn, -1, dtype=np.int64),
         np.full(nn, -1, dtype=np.int64), np.zeros(n, dtype=np.int64),
         NB[:, :p], NB[:, p:2 * p], NB[:, 2 * p:3 * p], NB[:, 4 * p], np.zeros(nn),
         np.zeros(nn, dtype=np.int64), NB[:, 4 * p + 1], np.zeros(p),
         np.empty((p, n)), np.ones(n, dtype=np.bool_), np.zeros(n, dtype=np.int64),
         NB[:, 3 * p:4 * p], NB[:, 4 * p + 2], leaf_size, np.full(1, n))
    _fill(T, X, np.arange(n))
    return T


@njit(cache=True)
def rebuild(T, X, alive):
    """Rebuild the tree in place over the remaining records only (fresh, tight
    balls and a balanced split of what is left); the same answers."""
    rows = np.flatnonzero(alive)
    if rows.size > 0 and _count_nodes(rows.size, T[20]) <= T[1].shape[0]:
        _fill(T, X, rows)
        T[21][0] = rows.size


REBUILD = 0.8  # rebuild the tree when this fraction of its records remain


@njit(cache=True)
def maybe_rebuild(T, X, alive, m):
    """:func:`rebuild` once only ``REBUILD`` of the records it was built on remain."""
    if m <= REBUILD * T[21][0] and m >= 16:
        rebuild(T, X, alive)


@njit(cache=True)
def _fill(T, X, rows):
    """Build the tree of ``T`` over the records ``rows`` (ascending)."""
    perm, start, end, left, right, parent, leaf_of, lo, hi, cen, rad, off, cnt = T[:13]
    maxn2, c0, Xp, talive, tpos, cc, L2, leaf_size = T[13:21]
    m = rows.shape[0]
    p = X.shape[1]
    perm[:m] = rows
    left[:] = -1
    right[:] = -1
    parent[:] = -1
    cnt[:] = 0
    start[0] = 0
    end[0] = m
    todo = np.empty(STACK, dtype=np.int64)
    nn = 1
    top = 1
    todo[0] = 0
    while top > 0:
        top -= 1
        v = todo[top]
        a, b = start[v], end[v]
        cnt[v] = b - a
        for j in range(p):
            lo[v, j] = np.inf
            hi[v, j] = -np.inf
            cen[v, j] = 0.0
        for t in range(a, b):
            i = perm[t]
            for j in range(p):
                x = X[i, j]
                cen[v, j] += x
                lo[v, j] = min(lo[v, j], x)
                hi[v, j] = max(hi[v, j], x)
        for j in range(p):
            cen[v, j] /= b - a
        r2 = 0.0
        for t in range(a, b):
            d = sqdist_row(X, perm[t], cen[v])
            r2 = max(r2, d)
        rad[v] = np.sqrt(r2) * (1.0 + BALL_MARGIN)
        if b - a <= leaf_size:
            for t in range(a, b):
                leaf_of[perm[t]] = v
            continue
        dim = np.int64(0)
        w = -1.0
        for j in range(p):
            if hi[v, j] - lo[v, j] > w:
                w = hi[v, j] - lo[v, j]
                dim = j
        mid = (a + b) // 2
        _select(X, perm, a, b, mid, dim)
        for c, (ca, cb) in enumerate(((a, mid), (mid, b))):
            u = nn
            nn += 1
            start[u] = ca
            end[u] = cb
            parent[u] = v
            if c == 0:
                left[v] = u
            else:
                right[v] = u
            todo[top] = u
            top += 1
    c0[:] = cen[0]  # centroid of the records: reference point of the norm bounds
    for v in range(nn):
        maxn2[v] = 0.0
        if left[v] < 0:
            for t in range(start[v], end[v]):
                maxn2[v] = max(maxn2[v], sqdist_row(X, perm[t], c0))
    for v in range(nn - 1, 0, -1):  # children are numbered after their parent
        maxn2[parent[v]] = max(maxn2[parent[v]], maxn2[v])
    for u in range(1, nn):  # distance from a node's ball centre to its parent's
        off[u] = np.sqrt(sqdist_pts(cen[u], cen[parent[u]])) * (1.0 + BALL_MARGIN)
    for v in range(nn):
        for j in range(p):
            cc[v, j] = cen[v, j] - c0[j]
        L2[v] = sqdist_pts(cen[v], c0)
    # the records in tree order, transposed (a leaf's coordinate j is
    # contiguous), their remaining flags in that order and each row's position
    for t in range(m):
        for j in range(p):
            Xp[j, t] = X[perm[t], j]
        tpos[perm[t]] = t
        talive[t] = True
    talive[m:] = False


@njit(cache=True)
def tree_remove(T, X, alive, i):
    """Remove record ``i`` (already marked dead in ``alive``): counts, then the
    boxes and balls of its leaf and of the ancestors whose bounds change."""
    perm, start, end, left, right, parent, leaf_of, lo, hi, cen, rad, off, cnt, maxn2, c0 = T[:15]
    Xp, talive = T[15], T[16]
    p = X.shape[1]
    talive[T[17][i]] = False
    v = leaf_of[i]
    u = v
    while u >= 0:
        cnt[u] -= 1
        u = parent[u]
    if cnt[v] > 0:
        # every bound is written once, from its old value to its new one, so a
        # search on another thread reads bounds valid for the records left
        # (mipagg.heuristics._twocore)
        box = np.empty((2, p))
        box[0] = np.inf
        box[1] = -np.inf
        r2 = 0.0
        mx = 0.0
        for t in range(start[v], end[v]):
            if talive[t]:
                mx = max(mx, sqdist_col(Xp, t, c0))
                for j in range(p):
                    x = Xp[j, t]
                    box[0, j] = min(box[0, j], x)
                    box[1, j] = max(box[1, j], x)
                r2 = max(r2, sqdist_col(Xp, t, cen[v]))
        for j in range(p):
            lo[v, j] = box[0, j]
            hi[v, j] = box[1, j]
        rad[v] = min(rad[v], np.sqrt(r2) * (1.0 + BALL_MARGIN))
        maxn2[v] = mx
    u = parent[v]
    while u >= 0:
        a, b = left[u], right[u]
        changed = False
        r = 0.0
        for c in (a, b):
            if cnt[c] > 0:
                r = max(r, off[c] + rad[c])
        r = r * (1.0 + BALL_MARGIN)
        mx = 0.0
        for c in (a, b):
            if cnt[c] > 0:
                mx = max(mx, maxn2[c])
        if mx < maxn2[u]:
            maxn2[u] = mx
            changed = True
        if r < rad[u]:
            rad[u] = r
            changed = True
        for j in range(p):
            nl = np.inf
            nh = -np.inf
            for c in (a, b):
                if cnt[c] > 0:
                    nl = min(nl, lo[c, j])
                    nh = max(nh, hi[c, j])
            if nl != lo[u, j] or nh != hi[u, j]:
                lo[u, j] = nl
                hi[u, j] = nh
                changed = True
        if not changed or cnt[u] == 0:
            break
        u = parent[u]


@njit(cache=True, inline="always")
def upper_far(T, v, q, w, qn, best):
    """An upper bound on the computed distance from ``q`` to any record of node
    v (``w`` = q − c₀, ``qn`` ≥ ‖w‖²), the least of

    * the box bound (exact by monotonicity of rounding);
    * the norm bound ‖x−c₀‖² + ‖w‖² − 2·min (x−c₀)·w, the minimum bounded
      below over the box and over the node's ball (tight in high dimension,
      where box corners lie far beyond the records);
    * the farthest point from q of the intersection of the node's ball
      B(cen, rad) and of the ball B(c₀, R) holding its records (R² = the
      largest ‖x−c₀‖²): the far point of either ball if it lies in the other,
      else a point of the circle where the two spheres meet;

    the last two with a relative margin far above their rounding error.  It
    returns as soon as a bound falls below ``best``."""
    lo, hi, cen, rad, maxn2, c0, cc, L2 = T[7], T[8], T[9], T[10], T[13], T[14], T[18], T[19]
    s = 0.0
    lin = 0.0
    cw = 0.0
    qc2 = 0.0
    for j in range(q.shape[0]):
        a = q[j] - lo[v, j]
        b = hi[v, j] - q[j]
        f = max(b, a)
        s += f * f
        la = (lo[v, j] - c0[j]) * w[j]
        lb = (hi[v, j] - c0[j]) * w[j]
        lin += min(lb, la)
        cw += cc[v, j] * w[j]
        e = q[j] - cen[v, j]
        qc2 += e * e
    r = rad[v]
    wn = np.sqrt(qn)
    lin = max(lin, cw - r * wn * (1.0 + BALL_MARGIN) - BALL_MARGIN * np.sqrt(L2[v] * qn))
    nb = maxn2[v] + qn - 2.0 * lin
    nb += BALL_MARGIN * (maxn2[v] + qn + 2.0 * abs(lin)) + 1e-300
    qc = np.sqrt(qc2)
    c = (qc + r) * (qc + r) * (1.0 + BALL_MARGIN)
    u = min(nb, min(s, c))
    if u < best:
        return u
    # the intersection of the two balls (scalars only: cw = (cen − c0)·w)
    R2 = maxn2[v] * (1.0 + BALL_MARGIN)
    R = np.sqrt(R2)
    Ln2 = L2[v]
    Ln = np.sqrt(Ln2)
    scale = (wn + R) * (wn + R)
    if Ln <= 1e-4 * (R + r) or qc <= 1e-4 * scale ** 0.5 or wn <= 1e-4 * scale ** 0.5:
        return u
    # is the far point of B(cen, r) from q inside B(c0, R), and vice versa?
    val = 0.0
    if Ln2 + r * r + 2.0 * (r / qc) * (Ln2 - cw) <= R2 * (1.0 + 1e-8):
        val = (qc + r) * (qc + r)
    if Ln2 + R2 + 2.0 * (R / wn) * cw <= r * r * (1.0 + 1e-8):
        val = max(val, (wn + R) * (wn + R))
    t = (Ln2 + R2 - r * r) / (2.0 * Ln)
    h2 = R2 - t * t
    if h2 > 0.0:
        h = np.sqrt(h2)
        a = cw / Ln - t
        b = np.sqrt(max(qn - (cw / Ln) ** 2, 0.0) + 1e-13 * qn)
        val = max(val, a * a + (b + h) * (b + h))
    else:
        return u
    return min(u, val * (1.0 + 1e-9) + 1e-8 * scale)


@njit(cache=True, inline="always")
def _lower(T, v, q, wlo):
    """A lower bound on the computed distance from ``q`` to any record of node
    v: the largest of the box bound, the ball bound and the norm bound
    (‖q − c₀‖ − R)², R² = the node's largest ‖x − c₀‖² (``wlo`` ≤ ‖q − c₀‖;
    strong for the records on the rim, which MDAV's queries are)."""
    lo, hi, cen, rad, maxn2 = T[7], T[8], T[9], T[10], T[13]
    s = 0.0
    for j in range(q.shape[0]):
        if q[j] < lo[v, j]:
            g = lo[v, j] - q[j]
            s += g * g
        elif q[j] > hi[v, j]:
            g = q[j] - hi[v, j]
            s += g * g
    R = np.sqrt(maxn2[v]) * (1.0 + BALL_MARGIN)
    if wlo > R:
        nb = (wlo - R) * (wlo - R) * (1.0 - 1e-9)
        if nb > s:
            s = nb
    c = np.sqrt(sqdist_pts(q, cen[v])) - rad[v]
    if c > 0:
        c = c * c * (1.0 - BALL_MARGIN)
        if c > s:
            return c
    return s


@njit(cache=True, inline="always")
def _limit(bd, bi, alive, final):
    """The distance below which :func:`farthest_below` prunes: the last of its
    list, or once ``final[0]`` is set, the first of the list still remaining
    if that is larger (the list is sorted)."""
    lim = bd[bd.shape[0] - 1]
    if sh.load(final, 0):
        for t in range(bd.shape[0]):
            if bi[t] >= 0 and alive[bi[t]]:
                return max(lim, bd[t])
    return lim


@njit(cache=True)
def farthest_below(T, q, w, qn, roots, rb, nr, bd, bi, shared, me, alive, final):
    """Depth-first search for the records farthest from ``q`` under the nodes
    ``roots[:nr]`` (upper bounds ``rb``): ``bd``, ``bi`` (M entries, distance
    −1 and index −1 where empty) keep the M best by decreasing distance, ties
    to the lowest index, and are updated in place.

    A node is pruned below the M-th best distance, so M = 1 gives the record
    farthest from ``q``; with M = h + 1, the first of the list outside any h
    records removed meanwhile, and once ``final[0]`` says no more will be
    removed, nodes are pruned below the best remaining one (:func:`_limit`;
    :mod:`._twocore`).  ``shared[me]`` receives that limit as it grows, and
    nodes are pruned against the largest entry of ``shared`` as well: the
    searches of other threads over other roots."""
    perm, start, end, left = T[0], T[1], T[2], T[3]
    right, cnt, Xp, talive = T[4], T[12], T[15], T[16]
    M = bd.shape[0]
    nodes = np.empty(STACK, dtype=np.int64)
    bounds = np.empty(STACK)
    buf = np.empty(T[20])
    sp = 0
    for t in range(nr - 1, -1, -1):  # the first root is searched first
        nodes[sp] = roots[t]
        bounds[sp] = rb[t]
        sp += 1
    lim = _limit(bd, bi, alive, final)
    while sp > 0:
        sp -= 1
        v = nodes[sp]
        g = lim
        for t in range(shared.shape[0]):
            g = max(g, shared[t])
        if bounds[sp] < g or cnt[v] == 0:
            continue
        if left[v] < 0:
            a = start[v]
            leaf_sqdist(Xp, a, end[v], q, buf)
            lastd, lasti = bd[M - 1], bi[M - 1]  # the entry to beat, kept in registers
            for t in range(a, end[v]):
                d = buf[t - a]
                if talive[t] and (d > lastd or (d == lastd and perm[t] < lasti)):
                    i = perm[t]
                    j = M - 1
                    while j > 0 and (bd[j - 1] < d or (bd[j - 1] == d and bi[j - 1] > i)):
                        bd[j] = bd[j - 1]
                        bi[j] = bi[j - 1]
                        j -= 1
                    bd[j] = d
                    bi[j] = i
                    lastd, lasti = bd[M - 1], bi[M - 1]
            lim = _limit(bd, bi, alive, final)
            shared[me] = lim
            continue
        a, b = left[v], right[v]
        ua = upper_far(T, a, q, w, qn, g) if cnt[a] > 0 else -1.0
        ub = upper_far(T, b, q, w, qn, g) if cnt[b] > 0 else -1.0
        if ua > ub:  # push the more promising child last
            a, b, ua, ub = b, a, ub, ua
        if ua >= g and ua >= 0:
            nodes[sp] = a
            bounds[sp] = ua
            sp += 1
        if ub >= g and ub >= 0:
            nodes[sp] = b
            bounds[sp] = ub
            sp += 1


@njit(cache=True, inline="always")
def far_terms(T, q):
    """``w`` = q − c₀ and ``qn`` ≥ ‖w‖², the terms of :func:`upper_far`."""
    return q - T[14], sqdist_pts(q, T[14]) * (1.0 + BALL_MARGIN)


@njit(cache=True)
def tree_farthest(T, X, alive, q):
    """The remaining record farthest from point ``q`` (lowest index on ties):
    ``argmax`` of the reference over the remaining rows in ascending order."""
    w, qn = far_terms(T, q)
    roots = np.zeros(1, dtype=np.int64)
    rb = np.full(1, np.inf)
    bd = np.full(1, -1.0)
    bi = np.full(1, -1, dtype=np.int64)
    farthest_below(T, q, w, qn, roots, rb, np.int64(1), bd, bi, np.full(1, -1.0), np.int64(0),
                   alive, np.ones(1, dtype=np.int64))
    return bi[0]


@njit(cache=True)
def farthest_each(T, X, alive, rows, far, fd):
    """``far[i]``, ``fd[i]`` = :func:`tree_farthest` of record i and its
    squared distance (the loop of ``_common.sqdist_to``), for i in ``rows``."""
    for i in rows:
        j = tree_farthest(T, X, alive, X[i])
        far[i] = j
        fd[i] = sqdist_row(X, j, X[i])


@njit(cache=True)
def remove_rows(T, X, alive, rows):
    """:func:`tree_remove` of ``rows`` (already marked dead in ``alive``)."""
    for i in rows:
        tree_remove(T, X, alive, i)


@njit(cache=True)
def tree_nearest(T, X, alive, q, m):
    """The ``m`` remaining records nearest to ``q`` in increasing (distance,
    index) order: the stable-sort selection of ``_common.nearest``."""
    perm, start, end, left = T[0], T[1], T[2], T[3]
    right, cnt, Xp, talive = T[4], T[12], T[15], T[16]
    bd = np.empty(m)
    bi = np.empty(m, dtype=np.int64)
    c = 0
    buf = np.empty(T[20])
    wlo = np.sqrt(sqdist_pts(q, T[14])) * (1.0 - BALL_MARGIN)
    nodes = np.empty(STACK, dtype=np.int64)
    bounds = np.empty(STACK)
    nodes[0] = 0
    bounds[0] = 0.0
    sp = 1
    while sp > 0:
        sp -= 1
        v = nodes[sp]
        if cnt[v] == 0 or (c == m and bounds[sp] > bd[m - 1]):
            continue
        if left[v] < 0:
            a = start[v]
            leaf_sqdist(Xp, a, end[v], q, buf)
            for t in range(a, end[v]):
                if not talive[t]:
                    continue
                d = buf[t - a]
                i = perm[t]
                if c < m:
                    j = c
                    c += 1
                elif d < bd[m - 1] or (d == bd[m - 1] and i < bi[m - 1]):
                    j = m - 1
                else:
                    continue
                while j > 0 and (bd[j - 1] > d or (bd[j - 1] == d and bi[j - 1] > i)):
                    bd[j] = bd[j - 1]
                    bi[j] = bi[j - 1]
                    j -= 1
                bd[j] = d
                bi[j] = i
            continue
        a, b = left[v], right[v]
        la = _lower(T, a, q, wlo) if cnt[a] > 0 else np.inf
        lb = _lower(T, b, q, wlo) if cnt[b] > 0 else np.inf
        if la < lb:  # push the nearer child last
            a, b, la, lb = b, a, lb, la
        if la < np.inf:
            nodes[sp] = a
            bounds[sp] = la
            sp += 1
        if lb < np.inf:
            nodes[sp] = b
            bounds[sp] = lb
            sp += 1
    return bi[:c].copy()


# --------------------------------------------------------------------------
# farthest from the centroid of the remaining records


@njit(cache=True)
def centroid_state(X):
    """Running column sums of the remaining records with error bounds, the
    column maxima of |x|, and the scan order (decreasing distance to c₀)."""
    n, p = X.shape
    S = np.zeros(p)
    M = np.zeros(p)
    for i in range(n):
        for j in range(p):
            S[j] += X[i, j]
            M[j] = max(M[j], abs(X[i, j]))
    g = n * U / (1.0 - n * U)
    errS = np.empty(p)
    for j in range(p):
        errS[j] = 2.0 * g * n * M[j]
    c0 = S / max(n, 1)
    nu = np.empty(n)
    for i in range(n):
        nu[i] = np.sqrt(sqdist_row(X, i, c0)) * (1.0 + BALL_MARGIN)
    order = np.argsort(-nu)
    jump = np.arange(n + 1)
    work = np.zeros(4, dtype=np.int64)  # scanned since reset, fallbacks, resets, len(order)
    work[3] = n
    return S, errS, M, c0, nu, order, jump, work


@njit(cache=True)
def centroid_remove(C, X, i):
    S, errS = C[0], C[1]
    for j in range(X.shape[1]):
        S[j] -= X[i, j]
        errS[j] += 1.0001 * U * abs(S[j])


@njit(cache=True)
def _next_alive(jump, order, L, alive, pos):
    root = pos
    while root < L and (jump[root] != root or not alive[order[root]]):
        if jump[root] == root:
            jump[root] = root + 1
        root = jump[root]
    while pos < root:
        nxt = jump[pos]
        jump[pos] = root
        pos = nxt
    return root


@njit(cache=True)
def _reset_scan(C, X, alive, c):
    c0, nu, order, jump, work = C[3], C[4], C[5], C[6], C[7]
    c0[:] = c
    L = 0
    for t in range(work[3]):  # the remaining records, in the old order
        i = order[t]
        if alive[i]:
            nu[i] = np.sqrt(sqdist_row(X, i, c0)) * (1.0 + BALL_MARGIN)
            order[L] = i
            L += 1
    key = np.empty(L)
    for t in range(L):
        key[t] = -nu[order[t]]
    order[:L] = order[:L][np.argsort(key)]
    for t in range(L + 1):
        jump[t] = t
    work[0] = 0
    work[2] += 1
    work[3] = L


@njit(cache=True)
def farthest_from_centroid(C, X, alive, m):
    """The remaining record farthest from the centroid of the ``m`` remaining
    records, exactly as ``_common.farthest_from_centroid`` on the remaining
    rows in ascending order (lowest index on ties)."""
    S, errS, M, c0, nu, order, jump, work = C
    n, p = X.shape
    c = S / m
    # bound on |c - c_ref| per coordinate, c_ref the sequential sum / m
    g = m * U / (1.0 - m * U)
    delta2 = 0.0
    for j in range(p):
        dj = 2.0 * (errS[j] / m + g * M[j] + 2.0 * U * (abs(c[j]) + M[j]))
        delta2 += dj * dj
    delta = np.sqrt(delta2) * 1.01
    dc = np.sqrt(sqdist_pts(c, c0)) * (1.0 + BALL_MARGIN)
    ru = 8.0 * (p + 4) * U  # relative rounding of a computed distance, generous
    best = -1.0
    ncand = 0
    cand = np.empty(16, dtype=np.int64)
    cd = np.empty(16)
    L = work[3]
    pos = _next_alive(jump, order, L, alive, np.int64(0))
    scanned = 0
    while pos < L:
        y = order[pos]
        bound = (nu[y] + dc) ** 2 * (1.0 + BALL_MARGIN)
        tol = 2.0 * (delta * (2.0 * np.sqrt(max(best, 0.0)) + delta) + 2.0 * ru * max(best, 0.0))
        if bound < best - tol - 1e-300:
            break
        d = sqdist_row(X, y, c)
        scanned += 1
        best = max(best, d)
        if ncand == cand.shape[0]:  # keep only candidates still in range
            tol = 2.0 * (delta * (2.0 * np.sqrt(best) + delta) + 2.0 * ru * best)
            k = 0
            for t in range(ncand):
                if cd[t] >= best - tol:
                    cand[k] = cand[t]
                    cd[k] = cd[t]
                    k += 1
            ncand = k
            if ncand == cand.shape[0]:
                cand = np.concatenate((cand, np.empty(ncand, dtype=np.int64)))
                cd = np.concatenate((cd, np.empty(ncand)))
        cand[ncand] = y
        cd[ncand] = d
        ncand += 1
        pos = _next_alive(jump, order, L, alive, pos + 1)
    work[0] += scanned
    tol = 2.0 * (delta * (2.0 * np.sqrt(best) + delta) + 2.0 * ru * best)
    arg = -1
    same = True
    for t in range(ncand):
        if cd[t] >= best - tol:
            y = cand[t]
            if arg < 0:
                arg = y
            else:
                for j in range(p):
                    if X[y, j] != X[arg, j]:
                        same = False
                arg = min(arg, y)
    if not same:  # a near tie between different rows: the reference's own centroid
        work[1] += 1
        acc = np.zeros(p)
        for i in range(n):
            if alive[i]:
                for j in range(p):
                    acc[j] += X[i, j]
        cref = acc / m
        bestr = -1.0
        arg = -1
        for t in range(ncand):
            if cd[t] >= best - tol:
                y = cand[t]
                d = sqdist_row(X, y, cref)
                if d > bestr or (d == bestr and y < arg):
                    bestr = d
                    arg = y
    if work[0] > 4 * m + 64:  # scans got long: re-centre the order on c
        _reset_scan(C, X, alive, c)
    return arg


# --------------------------------------------------------------------------
# group formation shared by the drivers


@njit(cache=True)
def remove(T, C, X, alive, i):
    alive[i] = False
    tree_remove(T, X, alive, i)
    centroid_remove(C, X, i)


@njit(cache=True)
def take_group(T, C, X, alive, center, k, out, pos, center_first):
    """Write ``center`` and its k−1 nearest remaining records to ``out[pos:]``
    and remove them.  The order is that of the references: the k nearest by
    (distance, index), with the centre put first if it is not among them
    (duplicate rows at distance 0) — or always first (``center_first``,
    ``fixed._group_around``)."""
    idx = tree_nearest(T, X, alive, X[center], k)
    return take_nearest(T, C, X, alive, center, idx, k, out, pos, center_first)


@njit(cache=True)
def take_nearest(T, C, X, alive, center, idx, k, out, pos, center_first):
    """:func:`take_group` with ``idx`` = the k nearest of ``center``, found."""
    has = False
    for i in idx:
        if i == center:
            has = True
    if has and not (center_first and idx[0] != center):
        for t in range(k):
            out[pos + t] = idx[t]
    else:
        out[pos] = center
        t = 1
        for i in idx:
            if i != center and t < k:
                out[pos + t] = i
                t += 1
    for t in range(k):
        remove(T, C, X, alive, out[pos + t])
    return pos + k


@njit(cache=True)
def start(X):
    """Index and state of a run over all rows of ``X``: tree, centroid state,
    remaining mask, output buffer and ``st`` = (remaining, written, groups)."""
    n = X.shape[0]
    st = np.zeros(3, dtype=np.int64)
    st[0] = n
    return (build_tree(X, np.int64(LEAF_SIZE)), centroid_state(X), np.ones(n, dtype=np.bool_),
            np.empty(n, dtype=np.int64), st)


def in_chunks(steps, st, n, name, verbose):
    """Call ``steps(budget)`` until it returns True, printing progress to
    stderr every few seconds when ``verbose``."""
    from ..progress import Progress

    progress = Progress(name, enabled=verbose)
    budget = max(1, n // 400)
    while not steps(budget):
        progress.update(records=f"{n - int(st[0])}/{n} grouped")
    progress.done(records=f"{n}/{n} grouped")


@njit(cache=True)
def centre_groups(X, k, pairs, stop, center_first, T, C, alive, out, sizes, st, budget):
    """Groups formed around the record r farthest from the centroid of the
    remaining records (and, with ``pairs``, then around the record s farthest
    from r), while at least ``stop`` records remain; at most ``budget`` steps
    from state ``st`` (see :func:`start`); True when done.  The loops of CBFS
    (``pairs=False, stop=2k``) and of the MDAV path of seed 004 (``pairs=True,
    stop=2k``), the centre put first as ``fixed._group_around`` does
    (``center_first``)."""
    m, pos, g = st[0], st[1], st[2]
    steps = 0
    while m >= stop and steps < budget:
        maybe_rebuild(T, X, alive, m)
        r = farthest_from_centroid(C, X, alive, m)
        if pairs:
            s = tree_farthest(T, X, alive, X[r])
        pos = take_group(T, C, X, alive, r, k, out, pos, center_first)
        sizes[g] = k
        g += 1
        m -= k
        if pairs:
            if not alive[s]:
                s = tree_farthest(T, X, alive, X[r])
            pos = take_group(T, C, X, alive, s, k, out, pos, center_first)
            sizes[g] = k
            g += 1
            m -= k
        steps += 1
    st[0], st[1], st[2] = m, pos, g
    return m < stop


def centre_groups_list(X, k, pairs, name, verbose):
    """:func:`centre_groups` to the end (stop = 2k, centre first): the list of
    groups formed and the mask of the records left."""
    T, C, alive, out, st = start(X)
    sizes = np.empty(X.shape[0] // k + 1, dtype=np.int64)
    in_chunks(lambda budget: centre_groups(X, k, pairs, 2 * k, True, T, C, alive, out, sizes,
                                           st, budget), st, X.shape[0], name, verbose)
    groups = list(np.split(out[:st[1]], np.cumsum(sizes[:st[2]])[:-1])) if st[2] else []
    return groups, alive


@njit(cache=True)
def npn_path(X, start):
    """Nearest point next from ``start`` (ties: lowest row index), the path of
    ``paths._npn_kernel`` with each step answered by the tree."""
    n = X.shape[0]
    T = build_tree(X, np.int64(LEAF_SIZE))
    alive = np.ones(n, dtype=np.bool_)
    order = np.empty(n, dtype=np.int64)
    cur = start
    for t in range(n):
        order[t] = cur
        alive[cur] = False
        tree_remove(T, X, alive, cur)
        if t < n - 1:
            maybe_rebuild(T, X, alive, n - 1 - t)
            cur = tree_nearest(T, X, alive, X[cur], np.int64(1))[0]
    return order
