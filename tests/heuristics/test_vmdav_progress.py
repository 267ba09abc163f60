"""V-MDAV runs in chunks with progress lines on stderr (issue 24), same labels."""

import numpy as np

import mipagg.progress as progress
from mipagg.heuristics.vmdav import vmdav, vmdav_labels, vmdav_labels_reference


def test_vmdav_progress_lines_and_same_labels(monkeypatch, capsys):
    X = np.random.default_rng(5).normal(size=(1500, 3))
    quiet = vmdav_labels(X, 3, 0.5)
    capsys.readouterr()

    class Every(progress.Progress):  # a line at every chunk
        def __init__(self, name, **kw):
            super().__init__(name, **{**kw, "every": 0.0})

    monkeypatch.setattr(progress, "Progress", Every)
    loud = vmdav(X, 3, gamma=0.5, verbose=True).labels
    err = capsys.readouterr().err.splitlines()
    assert np.array_equal(vmdav_labels(X, 3, 0.5), quiet)
    assert np.array_equal(quiet, vmdav_labels_reference(X, 3, 0.5))
    assert len(loud) == 1500 and len(set(loud.tolist())) == quiet.max() + 1
    assert len(err) > 5 and all(line.startswith("[vmdav ") for line in err)
    done = [int(line.split("records ")[1].split("/")[0]) for line in err]
    assert done == sorted(done) and done[-1] == 1500 and done[0] < 1500
    assert not capsys.readouterr().err  # verbose=False prints nothing
