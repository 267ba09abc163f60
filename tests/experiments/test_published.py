"""mipagg.experiments.published: integrity of the table of published values, and
spot checks against the seed texts in ../shared/seeds (skipped when absent)."""

import re
from collections import defaultdict
from pathlib import Path

import pytest

from mipagg.experiments.published import (
    DATASETS,
    KINDS,
    KS,
    PARTITION_KINDS,
    PUBLISHED,
    SEEDS,
    PublishedValue,
    beats,
    best_published,
    lowest_published,
    published,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS_DIR = ROOT.parent / "shared" / "seeds"
SEED_FILES = {"000": "000_3f8e572e4b2b9bb3.txt", "001": "001_7641be8a212a544e.txt",
              "002": "002_2a4198f710bf2a87.txt", "003": "003_7832640af6ec4874.txt",
              "004": "004_da1627f79d81ff1c.txt"}


def _seed_text(seed: str) -> str:
    path = SEEDS_DIR / SEED_FILES[seed]
    if not path.is_file():
        pytest.skip(f"seed text {path} not available")
    return path.read_text(encoding="utf-8")


def _find(data, k, method, table, kind="single"):
    rows = [v for v in PUBLISHED if (v.data, v.k, v.method, v.table, v.kind)
            == (data, k, method, table, kind)]
    assert len(rows) == 1, (data, k, method, table, kind, rows)
    return rows[0]


# --- integrity ------------------------------------------------------------------------------

def test_rows_are_well_formed():
    assert len(PUBLISHED) > 300
    for v in PUBLISHED:
        assert isinstance(v, PublishedValue)
        assert v.data in DATASETS and v.k in KS and v.kind in KINDS, v
        assert v.seed in SEEDS and v.seed not in ("001", "002"), v  # those publish no full-file IL
        assert re.fullmatch(r"\d+[.,]\d+", v.printed), v
        assert 0 < v.il < 100 and v.method.strip() == v.method != "", v
        if v.kind == "single":
            assert v.runs == 1, v
        else:
            assert v.runs is not None and v.runs >= 2, v


def test_rows_are_frozen_and_unique():
    v = PUBLISHED[0]
    with pytest.raises(AttributeError):
        v.printed = "0.0"
    keys = [(v.data, v.k, v.method, v.seed, v.table, v.kind) for v in PUBLISHED]
    assert len(keys) == len(set(keys))


def test_best_mean_worst_are_ordered():
    stats = defaultdict(dict)
    for v in PUBLISHED:
        if v.kind != "single":
            stats[(v.data, v.k, v.method, v.table)][v.kind] = v.il
    assert stats
    for key, s in stats.items():
        if "best" in s:  # Tables 4.2/4.4 print mean, min and max; Table 6.1 means only
            assert set(s) == {"mean", "best", "worst"}, key
            assert s["best"] <= s["mean"] <= s["worst"], key


def test_every_cell_has_values_and_the_queries_agree():
    for data in DATASETS:
        for k in KS:
            rows = published(data, k)
            assert rows, (data, k)
            best, low = best_published(data, k), lowest_published(data, k)
            assert best.kind in PARTITION_KINDS
            assert best.il == min(v.il for v in rows if v.is_partition)
            assert low.il == min(v.il for v in rows) <= best.il
    with pytest.raises(ValueError):
        best_published("eia", 3)
    with pytest.raises(ValueError):
        best_published("census", 7)
    with pytest.raises(ValueError):
        published("census", 3, kinds=["median"])


def test_best_published_table():
    """The best published partition per cell (the values the README of
    docs/results/casc.md compares against)."""
    expected = {
        ("census", 3): ("4.9917", "Concorde - MHM", "4.2", "best"),
        ("census", 4): ("6.7774", "MDAV-LK-MHM", "4.2", "best"),
        ("census", 5): ("8.2372", "Concorde - MHM", "4.2", "best"),
        ("census", 6): ("9.4894", "C2-C-MHM", "5.2", "single"),
        ("census", 10): ("12.774", "MDAV - RCS (0, 0)", "6.1", "single"),
        ("tarragona", 3): ("14.6294", "Concorde - MHM", "4.4", "best"),
        ("tarragona", 4): ("17.7528", "Concorde - MHM", "4.4", "best"),
        ("tarragona", 5): ("21.3313", "Farthest Insertion - MHM", "4.4", "best"),
        ("tarragona", 6): ("24.6538", "Nearest Insertion - MHM", "4.4", "best"),
        ("tarragona", 10): ("32.3006", "C3-C-MHM", "5.3", "single"),
    }
    for (data, k), (printed, method, table, kind) in expected.items():
        b = best_published(data, k)
        assert (b.printed, b.method, b.table, b.kind, b.seed) == (printed, method, table, kind,
                                                                  "003"), (data, k)
        low = lowest_published(data, k)
        if (data, k) == ("census", 10):  # an average of 5 RCS runs is lower than any partition
            assert (low.printed, low.kind, low.runs) == ("12.446", "mean", 5)
        else:
            assert low is b


def test_design_md_values():
    """DESIGN.md: MDAV, all 13 columns, reproduced exactly (seed 003 Tables 5.2 / 5.3)."""
    design = {"census": ["5.6922", "7.4947", "9.0884", "14.1559"],
              "tarragona": ["16.9326", "19.5460", "22.4619", "33.1929"]}
    for data, values in design.items():
        table = {"census": "5.2", "tarragona": "5.3"}[data]
        for k, printed in zip((3, 4, 5, 10), values):
            assert _find(data, k, "MDAV", table).printed == printed
    v = _find("census", 10, "MDAV - RCS (1/1000, 10)", "6.1", "mean")
    assert (v.printed, v.seed, v.runs) == ("12.446", "003", 5)
    # seed 004 prints another MDAV value for Census at k = 10
    assert _find("census", 10, "MDAV", "5").printed == "14.2239"


def test_beats_respects_printed_digits():
    v = _find("census", 10, "MDAV - RCS (1/1000, 10)", "6.1", "mean")   # 12.446
    assert beats(12.4450, v) and beats(12.4454, v)
    assert not beats(12.4455, v) and not beats(12.446, v)
    w = _find("census", 3, "MF-TSP", "IX")                              # "6,00"
    assert w.il == 6.0 and w.decimals == 2 and beats(5.99, w) and not beats(5.996, w)


# --- against the seed texts -------------------------------------------------------------------

def _squeeze(text: str) -> str:
    """The seed text without whitespace and table rules: closes the OCR's split
    numbers ('2\\t1.3313' -> '21.3313')."""
    return re.sub(r"[\s|]+", "", text)


def _groups():
    groups = defaultdict(list)
    order = {kind: i for i, kind in enumerate(KINDS)}
    for v in PUBLISHED:
        groups[(v.seed, v.table, v.data, v.method)].append(v)
    return {key: sorted(rows, key=lambda v: (v.k, order[v.kind])) for key, rows in groups.items()}


def test_every_row_appears_in_its_seed_in_order():
    """Each printed table row (all its values, in k order; mean, min, max for
    Tables 4.2/4.4) occurs in the seed text, with at most 40 characters of
    other columns (σ, skipped k) between consecutive values."""
    squeezed = {s: _squeeze(_seed_text(s)) for s in ("000", "003", "004")}
    for (seed, table, data, method), rows in _groups().items():
        pattern = ".{0,40}?".join(re.escape(v.printed) for v in rows)
        assert re.search(pattern, squeezed[seed]), (seed, table, data, method,
                                                    [v.printed for v in rows])


def test_clean_table_rows_carry_their_method_name():
    """Where the OCR kept the table lines, the method name (as printed) and the row's
    values are on one line."""
    printed_name = {"MF-TSP": "ME-TSP"}      # seed 000: the OCR reads MF as ME
    for (seed, table, data, method), rows in _groups().items():
        if table in ("4.2", "6.1"):           # 4.2: names lost; 6.1: checked below
            continue
        name = printed_name.get(method, method) if seed == "000" else method
        lines = [line for line in _seed_text(seed).splitlines()
                 if re.search(rf"(^|\s){re.escape(name)}(\s|$)", line)
                 and all(v.printed in _squeeze(line) for v in rows)]
        assert lines, (seed, table, data, method)


def test_table_6_1_lines():
    lines = _seed_text("003").splitlines()
    settings = defaultdict(list)
    for v in published("census", kinds=KINDS):
        if v.table == "6.1" and v.method.startswith("MDAV - RCS"):
            settings[v.method].append(v)
    assert len(settings) == 7
    for method, rows in settings.items():
        p, events = re.fullmatch(r"MDAV - RCS \((.+), (\d+)\)", method).groups()
        values = r"\s+[\d.NA]+\s+".join(re.escape(v.printed) for v in sorted(rows, key=lambda v: v.k))
        pat = rf"(^|\s){re.escape(p)}\s+{events}\s+{values}"
        hits = [line for line in lines if re.search(pat, line)]
        assert len(hits) == 1, (method, hits)
    # the MDAV line of Table 6.1 (Census, k = 3, 5, 10)
    assert any(re.search(r"MDAV\s+NA\s+5\.692\s+NA\s+9\.088\s+NA\s+14\.156", line) for line in lines)
    assert "12.446\t0.028" in _seed_text("003")


def test_design_values_in_table_5_2_and_5_3_lines():
    text = _seed_text("003")
    assert re.search(r"MDAV\tN/A\t5\.6922\t7\.4947\t9\.0884\t10\.3847\t[\d.]+\t[\d.]+\t[\d.]+\t14\.1559",
                     text)
    assert re.search(r"MDAV\tN/A\t16\.9326\t19\.5460\t22\.4619\t26\.3252\t[\d.]+\t[\d.]+\t[\d.]+"
                     r"\t33\.1929", text)


def test_seeds_001_and_002_print_no_full_file_il():
    """Seed 001 reports subsets only; seed 002's tables are not in its text (the
    thesis Tables 4.2/4.4 hold the same experiment): no four-decimal IL in either."""
    for seed in ("001", "002"):
        assert not re.search(r"\b\d{1,2}\.\d{4}\b", _seed_text(seed)), seed
