"""Plain-text summaries of effect truth and design searches for the terminal."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from scmspec.effects.designs import describe
from scmspec.effects.optimize import Optimum, Scored
from scmspec.effects.truth import EffectTruth
from scmspec.samplers.scm import SCM


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts (NaN becomes None)."""
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in frame.to_dict("records")]


def _num(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


def summary(truth: EffectTruth) -> str:
    """The card contrast of each target on each observed descendant (all rows, first measure).

    The full table (unit and level contrasts, strata, the selected population,
    non-descendants) is in effects.csv.
    """
    t = truth.table
    main = t[(t["contrast"] == "card") & (t["population"] == "all") & (t["stratum"] == "")
             & (t["descendant"] == 1)]
    main = main.drop_duplicates(["target", "outcome"])  # one measure per outcome
    s = truth.settings
    lines = [f"{s['card']}: effects of each target's card intervention on its observed "
             f"descendants ({s['rows']:,} paired rows, seed {s['seed']}"
             + (", linear-Gaussian: exact values shown" if s["linear_gaussian"] else "") + ")"]
    width = max([len(f"{r.target} -> {r.outcome}") for r in main.itertuples()] + [10])
    arm = max([len(str(r.treated)) for r in main.itertuples()] + [10])
    for r in main.itertuples():
        measure = "risk diff" if r.measure == "risk_difference" else "mean diff"
        exact = f"  exact {_num(r.exact)}" if s["linear_gaussian"] else ""
        lines.append(f"  {f'{r.target} -> {r.outcome}':{width}}  {r.treated:{arm}}  {measure}  "
                     f"{_num(r.estimate):>10} +- {_num(r.se)}{exact}")
    zero = int(((t["descendant"] == 0) & (t["population"] == "all")).sum())
    lines.append(f"{len(t)} rows in all; {zero} rows of non-descendants, each exactly 0")
    return "\n".join(lines)


def optimum_text(opt: Optimum, scm: SCM) -> str:
    """Best design, runner-ups and compared designs, each with its standard error."""
    goal = opt.goal
    where = ("over every drawn row (before selection" + (
        f": the selection condition reads {goal.outcome})" if scm.plan.selection is not None
        else ")") if opt.population == "all" else "among the rows that pass selection")
    lines = [f"{scm.id}: {'maximise' if goal.maximize else 'minimise'} the mean of "
             f"{goal.outcome} {where}"]
    if goal.fixed:
        lines.append(f"  held fixed: {describe(goal.fixed, opt.knobs, scm)}")
    lines.append("  knobs: " + "; ".join(
        f"{k.name} in {{{', '.join(k.names)}}}" if k.kind == "levels"
        else f"{k.name} in [{k.low:.6g}, {k.high:.6g}]" for k in opt.knobs))
    rows = ([("best", opt.best)] + [("runner-up", r) for r in opt.runners]
            + [("compared", c) for c in opt.compared])
    texts = [describe(r.design, opt.knobs, scm) for _, r in rows]
    width = max(len(t) for t in texts)
    for (role, r), text in zip(rows, texts):
        vs = "" if r is opt.best else f"   {r.diff:+.4f} +- {r.diff_se:.4f} vs best"
        lines.append(f"  {role:9}  {text:{width}}  {r.estimate:.4f} +- {r.se:.4f}{vs}")
    lines.append(f"{opt.evaluations} designs searched on {opt.rows:,} rows (seed {opt.seed}, "
                 f"split optimize); estimates from an independent run of {opt.rows:,} rows "
                 "(split optimize-check)")
    return "\n".join(lines)


def optimum_json(opt: Optimum, scm: SCM) -> dict[str, Any]:
    """The same numbers as :func:`optimum_text`, unrounded, with level names."""
    def one(r: Scored) -> dict[str, Any]:
        return {"design": describe(r.design, opt.knobs, scm), "values": r.design,
                "estimate": r.estimate, "se": r.se, "diff": r.diff, "diff_se": r.diff_se}

    return {"card": scm.id, "outcome": opt.goal.outcome, "maximize": opt.goal.maximize,
            "population": opt.population, "fixed": opt.goal.fixed,
            "knobs": [k.name for k in opt.knobs], "best": one(opt.best),
            "runners": [one(r) for r in opt.runners], "compared": [one(c) for c in opt.compared],
            "evaluations": opt.evaluations, "rows": opt.rows, "seed": opt.seed}
