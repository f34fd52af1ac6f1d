"""``scmspec episodes``: finished and truncated rates, scores over all and finished episodes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from scmspec import Environment
from scmspec.cli import app

ANTENNA = "drone_antenna_trap"


def test_the_report_counts_finished_and_truncated_episodes(games: dict[str, Path],
                                                           tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with Environment.open(games[ANTENNA], seed=1, log=logs / "a.jsonl") as env:
        env.observe(100)
        full = env.submit_graph({"edges": [["wind_speed", "storm_load"]]})
    with Environment.open(games[ANTENNA], seed=2, log=logs / "b.jsonl") as env:
        env.observe(50)
        env.intervene({"antenna_def": 0}, 50)  # ran out of time: closed without an answer
    interrupted = logs / "c.jsonl"
    with Environment.open(games[ANTENNA], seed=3, log=interrupted) as env:
        env.observe(10)
    interrupted.write_text("".join(interrupted.read_text().splitlines(True)[:2]) + '{"ev')
    result = CliRunner().invoke(app, ["episodes", str(logs), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "3 episodes, 1 finished, truncated 67%" in result.output
    rows = pd.read_csv(tmp_path / "site" / "episodes.csv")
    assert rows["status"].tolist() == ["finished", "truncated", "truncated"]
    assert rows["reason"].tolist()[1:] == ["closed without a submission",
                                           "no end event (interrupted)"]
    assert rows["queries"].tolist() == [1, 2, 1] and rows["rows_spent"].tolist()[:2] == [100, 100]
    summary = pd.read_csv(tmp_path / "site" / "summary.csv").iloc[0]
    assert summary["f1_finished"] == pytest.approx(full["f1"])
    # the truncated episode with an end event scores as the empty graph (f1 0); the
    # interrupted one has no score at all
    assert summary["f1_all"] == pytest.approx(full["f1"] / 2)
    assert summary["truncated_rate"] == pytest.approx(2 / 3)
    assert len(pd.read_csv(tmp_path / "site" / "queries.csv")) == 4
    assert "<svg" in (tmp_path / "site" / "index.html").read_text()


def test_a_folder_without_logs_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["episodes", str(tmp_path), "--out", str(tmp_path / "s")])
    assert result.exit_code == 1 and "no episode logs" in result.output


def test_serve_refuses_what_it_cannot_serve(games: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["serve", str(tmp_path), "--port", "0"])
    assert result.exit_code == 1 and "no compiled SCM folder" in result.output
    bad = tmp_path / "config.json"
    bad.write_text('{"budget": {"rows": -1}}')
    result = runner.invoke(app, ["serve", str(games[ANTENNA]), "--config", str(bad)])
    assert result.exit_code == 1 and "finite numbers >= 0" in result.output
    assert "Traceback" not in result.output
