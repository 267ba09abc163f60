"""TSP-based microaggregation: (HM)²-Micro, MF-TSP, MDAV-LK-MHM and the
compression method Cc-C-MHM (seeds 000, 002, 003).  Tours come from
:mod:`mipagg.tsp`; MHM from :mod:`mipagg.univariate`."""

from ._common import PathMicroResult, mdav_path
from .hm2 import compress, compression_path, hm2_micro, mdav_lk_mhm
from .mftsp import MFTSPResult, mf_tsp, mf_tsp_groups, neighbourhood_matrix, start_paths

__all__ = ["PathMicroResult", "MFTSPResult", "hm2_micro", "mdav_lk_mhm",
           "compression_path", "compress", "mdav_path", "mf_tsp", "mf_tsp_groups",
           "neighbourhood_matrix", "start_paths"]
