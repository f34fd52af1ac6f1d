"""One episode: the sealed SCM, the budget, the queries served, the log, the submission.

:class:`Episode` is the core that both :class:`scmspec.environment.Environment` (in process)
and ``scmspec serve`` (over HTTP) drive; neither hands it to the agent. Every query draws
from streams keyed by (episode seed, card id, ``episode-q<i>``), i the served query's index,
so an episode's data depend on its seed and its queries only, and the log (JSON lines,
:mod:`scmspec.environment.log`) is enough to replay it bit for bit. A refused query costs
nothing and takes no index; it is logged with its reason.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from scmspec.environment.config import (
    BudgetExhaustedError,
    EnvironmentConfig,
    EnvironmentError,
    EpisodeFinishedError,
)
from scmspec.environment.log import EPISODE_FORMAT, EpisodeLog
from scmspec.environment.queries import (
    Columns,
    check_design,
    context_handlers,
    draw,
    frame_digest,
    reference_scale,
)
from scmspec.environment.scores import design_scores, graph_scores, jsonable
from scmspec.samplers.scm import SCM
from scmspec.samplers.streams import Streams
from scmspec.version import __version__

SEED_LIMIT = 2**63


def fresh_seed() -> int:
    """An episode seed from the operating system's entropy."""
    return secrets.randbelow(SEED_LIMIT)


class Episode:
    """A metered, logged episode on one SCM (not for agents' hands: it holds the SCM)."""

    def __init__(self, scm: SCM, spec_sha256: str, config: EnvironmentConfig,
                 seed: int | None = None, log: str | Path | None = None) -> None:
        self._scm, self.config = scm, config
        self.seed = fresh_seed() if seed is None else int(seed)
        if not 0 <= self.seed < SEED_LIMIT:
            raise EnvironmentError(f"episode seed {seed} is outside 0..2**63-1")
        self._check_goal()
        self.lock = threading.Lock()
        self.spent, self.queries, self.status = 0.0, 0, "open"
        self._scale = reference_scale(scm)
        self._context = context_handlers(scm, config.goal.context) if config.goal else {}
        self.log = EpisodeLog(log)
        self.log.write({"event": "start", "format": EPISODE_FORMAT, "scm": scm.id,
                        "spec_sha256": spec_sha256, "seed": self.seed,
                        "config": config.to_json(), "scmspec_version": __version__})

    def _check_goal(self) -> None:
        goal = self.config.goal
        if goal is None:
            return
        unknown = [k for k in (goal.outcome, *goal.knobs, *goal.context)
                   if k not in self._scm.compiled.card.variables]
        bad = [k for k in goal.knobs if k not in self._scm.plan.targets]
        if unknown or bad:
            raise EnvironmentError(f"the design goal names unknown variables {unknown} or knobs "
                                   f"outside the card's intervention pool {bad}")

    # -- what the agent may know ----------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Observed variables, allowed targets and knob ranges, budget, goal; nothing else."""
        card = self._scm.compiled.card
        variables = [{"name": v, "kind": card.variables[v].kind, "unit": card.variables[v].unit,
                      "meaning": card.variables[v].meaning,
                      **({"levels": card.variables[v].levels} if card.variables[v].levels
                         else {})} for v in self._scm.observed]
        targets = [{"name": t, "kind": card.variables[t].kind,
                    "range": list(card.variables[t].range or ()) or None,
                    **({"levels": card.variables[t].levels} if card.variables[t].levels
                       else {})} for t in self.allowed]
        goal = self.config.goal
        return jsonable({
            "variables": variables, "targets": targets, "handlers": list(self.config.handlers),
            "selection": None if card.selection is None else (
                card.selection.meaning or "rows are kept only if they pass selection"),
            "goal": None if goal is None else {"outcome": goal.outcome, "knobs": list(goal.knobs),
                                               "maximize": goal.maximize,
                                               "context": dict(goal.context)},
            "budget": self.budget_status(), "status": self.status})

    @property
    def allowed(self) -> tuple[str, ...]:
        fixed = self.config.goal.context if self.config.goal else {}
        return tuple(t for t in self._scm.plan.targets if t not in fixed)

    def budget_status(self) -> dict[str, Any]:
        b = self.config.budget
        return {"rows": b.rows, "rows_spent": self.spent, "rows_left": b.rows - self.spent,
                "queries": b.queries, "queries_used": self.queries,
                "queries_left": b.queries - self.queries, "observe_row": b.observe_row,
                "intervene_row": b.intervene_row, "target_row": dict(b.target_row),
                "max_rows_per_query": b.max_rows_per_query}

    # -- queries --------------------------------------------------------------------------
    def observe(self, n: Any) -> pd.DataFrame:
        return self.query("observe", n, None)[0]

    def intervene(self, design: Any, n: Any) -> pd.DataFrame:
        return self.query("intervene", n, design)[0]

    def query(self, kind: str, n: Any, design: Any) -> tuple[pd.DataFrame, Columns]:
        """Serve one query: the returned rows as a frame and as column arrays."""
        event: dict[str, Any] = {"event": "query", "kind": kind, "n": jsonable_raw(n)}
        if design is not None:
            event["design"] = jsonable_raw(design)
        try:
            self._open()
            rows = self._rows(n)
            if kind not in ("observe", "intervene"):
                raise EnvironmentError(f"unknown query kind {kind!r}", "observe or intervene")
            handlers = {} if kind == "observe" else check_design(
                self._scm, design, self.allowed, self.config.handlers, self._context)
            cost = self.config.budget.cost(kind, rows, list(handlers))
            self._afford(cost, rows)
        except EnvironmentError as exc:
            self.log.write({**event, "event": "refused", "error": exc.code,
                            "message": exc.message})
            raise
        index, split = self.queries, f"episode-q{self.queries}"
        streams = Streams(self.seed, self._scm.id, split, 0)
        frame, arrays = draw(self._scm, {**self._context, **handlers}, rows, streams,
                             self._scale)
        self.spent += cost
        self.queries += 1
        frame.attrs.update(query=index, drawn=rows, returned=len(frame))
        self.log.write({**event, "index": index, "split": split, "cost": cost,
                        "rows_spent": self.spent, "queries_used": self.queries, "drawn": rows,
                        "returned": len(frame), "sha256": frame_digest(arrays)})
        return frame, arrays

    def _open(self) -> None:
        if self.status != "open":
            raise EpisodeFinishedError(f"the episode is {self.status}: no more queries",
                                       "start a new episode")

    def _rows(self, n: Any) -> int:
        top = self.config.budget.max_rows_per_query
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= top:
            raise EnvironmentError(f"n must be a whole number of rows in 1..{top}, not {n!r}")
        return n

    def _afford(self, cost: float, rows: int) -> None:
        b = self.config.budget
        if self.queries + 1 > b.queries:
            raise BudgetExhaustedError(f"the query budget is spent ({self.queries} of "
                                       f"{b.queries} queries used)",
                                       "submit your answer: the episode accepts no more queries")
        if self.spent + cost > b.rows + 1e-9:
            left = b.rows - self.spent
            raise BudgetExhaustedError(
                f"this query costs {cost:g} but only {left:g} of {b.rows:g} row units are left",
                "ask for fewer rows, or submit your answer")

    # -- the end --------------------------------------------------------------------------
    def submit_graph(self, adjacency: Any, variables: Any = None) -> dict[str, Any]:
        return self._submit("graph", lambda: graph_scores(self._scm, adjacency, variables),
                            {"adjacency": jsonable_raw(adjacency)})

    def submit_design(self, values: Any) -> dict[str, Any]:
        goal = self.config.goal
        if goal is None:
            raise EnvironmentError("this environment has no design goal",
                                   "submit a graph instead (submit_graph)")
        return self._submit("design", lambda: design_scores(self._scm, goal, values,
                                                           self.config.handlers),
                            {"design": jsonable_raw(values)})

    def _submit(self, kind: str, score: Callable[[], dict[str, Any]],
                submission: Mapping[str, Any]) -> dict[str, Any]:
        self._open()
        scores = score()
        self.status = "finished"
        self.log.write({"event": "submit", "kind": kind, **submission, "scores": scores,
                        "budget": self.budget_status()})
        self.log.write({"event": "end", "status": "finished"})
        self.log.close()
        return scores

    def close(self, reason: str = "closed without a submission") -> None:
        """End the episode; without a submission it is *truncated* (Heuresis's word)."""
        if self.status == "open":
            self.status = "truncated"
            empty = None if self.config.goal is not None else graph_scores(
                self._scm, {"edges": []})  # Heuresis: a truncated episode scores as no answer
            self.log.write({"event": "end", "status": "truncated", "reason": reason,
                            "budget": self.budget_status(), "scores": empty})
        self.log.close()

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.log.events


def jsonable_raw(value: Any) -> Any:
    """What the agent sent, as JSON (a DataFrame or array as nested lists)."""
    if hasattr(value, "to_numpy") and hasattr(value, "columns"):
        return {"variables": [str(c) for c in value.columns],
                "matrix": jsonable(value.to_numpy().tolist())}
    if hasattr(value, "tolist"):
        return jsonable(value.tolist())
    return jsonable(value)

