"""Leaderboards: methods compared on one release, by slice and by pairwise win rate.

Public API:
    build_leaderboard(runs, site)    ``scmspec leaderboard``: the offline site
    load_board(runs)                 the numbers without writing anything
    win_rates(units), slice_table(units, key), units(rows), row_table(records, method)
    LeaderboardError
"""

from __future__ import annotations

from scmspec.leaderboard.scores import row_table, slice_table, units, win_rates
from scmspec.leaderboard.site import Board, LeaderboardError, build_leaderboard, load_board

__all__ = ["Board", "LeaderboardError", "build_leaderboard", "load_board", "row_table",
           "slice_table", "units", "win_rates"]
