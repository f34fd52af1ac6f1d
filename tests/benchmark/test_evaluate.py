"""``scmspec evaluate``: every row recorded with its status, nothing dropped, runs resume,
reserved rows are scored only with the truth archive, and the method forms behave."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from scmspec.evaluation import (
    EvalOptions,
    RunFolderError,
    evaluate,
    read_records,
    read_run,
    resolve_method,
)
from scmspec.release import ReleaseError, read_release
from tests.benchmark.conftest import BUDGET, METHODS, Evaluated, release_ids

pytestmark = pytest.mark.slow  # runs methods in their own processes (about a minute here)
runner = CliRunner()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill 0; it is dead all the same
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


def test_every_row_is_recorded_with_its_status(evaluated: Evaluated) -> None:
    sleepy = read_records(evaluated.runs["sleepy"])
    expected = {f"{i}/{s}/rep-{r}" for i in evaluated.ids.values() for s in ("obs", "obsint")
                for r in (0, 1)}
    assert set(sleepy) == expected  # nothing dropped: 3 SCMs x 2 splits x 2 replicates
    for label, rec in sleepy.items():
        role = next(k for k, v in evaluated.ids.items() if label.startswith(v + "/"))
        want = {"sleep": "timed_out", "break": "invalid_output", "fine": "ok"}[role]
        assert rec["status"] == want, (label, rec)
        assert rec["scored"] and rec["true_edges"] > 0 and rec["factors"]["family"]
        if want == "timed_out":
            assert BUDGET <= rec["elapsed"] < 30 and "budget" in rec["error"]
            assert rec["metrics"] is None and rec["prediction"] is None
        elif want == "invalid_output":
            assert rec["error"] and rec["prediction"] is None
        else:
            assert rec["metrics"]["f1"] == 0.0 and rec["metrics"]["shd"] == rec["true_edges"]
            assert (evaluated.runs["sleepy"] / rec["prediction"]).is_file()
    assert "timed_out" in evaluated.outputs["sleepy"]


def test_a_timed_out_row_is_killed_with_everything_it_started(evaluated: Evaluated) -> None:
    pid_files = sorted(evaluated.pid_dir.iterdir())
    assert len(pid_files) == 4
    for f in pid_files:
        for pid in map(int, f.read_text().split()):
            assert not _alive(pid), f"{f.name}: process {pid} survived the budget"


def test_builtins_run_score_and_record_their_defaults(evaluated: Evaluated) -> None:
    for name in ("random_regress", "pc"):
        records = read_records(evaluated.runs[name])
        assert len(records) == 6 and all(r["split"] == "obs" for r in records.values())
        assert all(r["status"] == "ok" and r["scored"] for r in records.values()), records
        assert all(0 <= r["metrics"]["f1"] <= 1 for r in records.values())
    pc = read_run(evaluated.runs["pc"])["method"]
    assert pc["params"] == {"alpha": 0.05, "indep_test": "fisherz", "stable": True,
                            "uc_rule": 0, "uc_priority": 2}
    assert pc["output"] == "cpdag" and pc["library"].startswith("causal-learn ")
    rr = read_records(evaluated.runs["random_regress"])
    assert len({r["seed"] for r in rr.values()}) == len(rr)  # one seed per row


def test_a_rerun_resumes_and_runs_only_missing_rows(evaluated: Evaluated,
                                                    tmp_path: Path) -> None:
    runs = tmp_path / "rr"
    shutil.copytree(evaluated.runs["random_regress"], runs)
    before = {p: p.read_bytes() for p in sorted(runs.rglob("*.json"))}
    method = resolve_method("random_regress", None)
    options = EvalOptions(splits=("obs",), ids=tuple(evaluated.ids.values()))
    report = evaluate(evaluated.package, method, runs, options)
    assert (report.ran, report.skipped, len(report.records)) == (0, 6, 6)
    assert {p: p.read_bytes() for p in sorted(runs.rglob("*.json"))} == before
    lost = sorted(runs.glob("rows/*/obs/rep-1.json"))
    for p in lost:  # an interrupted run: these rows never finished
        p.unlink()
    report = evaluate(evaluated.package, method, runs, options)
    assert report.ran == len(lost) == 3 and report.skipped == 3
    again = {p: p.read_bytes() for p in sorted(runs.rglob("*.json"))}
    for p in lost:  # the same result again (only the measured times may differ)
        old, new = json.loads(before[p]), json.loads(again[p])
        assert {k: v for k, v in old.items() if k not in ("elapsed", "method_seconds")} == \
            {k: v for k, v in new.items() if k not in ("elapsed", "method_seconds")}


def test_retry_runs_rows_of_a_status_again(evaluated: Evaluated, tmp_path: Path) -> None:
    runs = tmp_path / "sleepy"
    shutil.copytree(evaluated.runs["sleepy"], runs)
    broken = evaluated.ids["break"]
    result = runner.invoke(app, ["evaluate", str(evaluated.package), "--out", str(runs),
                                 "--command", read_run(runs)["method"]["target"],
                                 "--name", "sleepy", "--ids", broken, "--retry",
                                 "invalid_output"])
    assert result.exit_code == 0, result.output
    assert "4 run, 0 already done" in result.output  # BREAK_ON is unset now: the rows pass
    assert all(r["status"] == "ok" for k, r in read_records(runs).items()
               if k.startswith(broken + "/"))


def test_reserved_rows_are_scored_only_with_the_truth_archive(evaluated: Evaluated,
                                                              tmp_path: Path) -> None:
    reserved = release_ids(evaluated.package, "reserved")["semantic"][0]
    method = resolve_method("random_regress", None)
    options = EvalOptions(splits=("obs",), ids=(reserved,))
    runs = tmp_path / "rr"
    first = evaluate(evaluated.package, method, runs, options)
    assert first.ran == 2 and not any(r["scored"] for r in first.records)
    assert all(r["metrics"] is None and r["true_edges"] is None for r in first.records)
    archive = evaluated.package.parent / "pkg.truth.tar"
    second = evaluate(evaluated.package, method, runs,
                      EvalOptions(splits=("obs",), ids=(reserved,), truth=archive))
    assert (second.ran, second.rescored) == (0, 2)
    assert all(r["scored"] and r["metrics"]["f1"] >= 0 for r in second.records)
    assert second.records[0]["factors"]["domain"]
    with pytest.raises(ReleaseError, match="not the truth archive"):
        evaluate(evaluated.package, method, runs, EvalOptions(truth=Path(__file__)))


def test_python_entry_points_report_ok_failed_and_invalid(evaluated: Evaluated,
                                                          tmp_path: Path) -> None:
    fine = evaluated.ids["fine"]
    options = EvalOptions(splits=("obs",), ids=(fine,), budget=60)
    statuses = {}
    for name in ("chain", "boom", "wrong_shape", "words", "crash"):
        method = resolve_method(f"{METHODS / 'python_methods.py'}:{name}", None)
        report = evaluate(evaluated.package, method, tmp_path / name, options)
        statuses[name] = {r["status"] for r in report.records}
        errors = [r["error"] for r in report.records]
        if name == "boom":
            assert all("RuntimeError: no luck on" in e for e in errors)
        if name == "crash":
            assert all("exited with code 3" in e for e in errors)
    assert statuses == {"chain": {"ok"}, "boom": {"failed"}, "wrong_shape": {"invalid_output"},
                        "words": {"invalid_output"}, "crash": {"failed"}}
    # the chain's rows were given in reverse order: matched by label, every edge counted
    chain = read_records(tmp_path / "chain")[f"{fine}/obs/rep-0"]
    columns = json.loads((evaluated.package / "public" / fine / "data.json").read_text())[
        "columns"]
    assert chain["metrics"]["pred_edges"] == len(columns) - 1
    # the method saw the columns shuffled with the row's seed, not in card order
    edges = pd.read_csv(tmp_path / "chain" / chain["prediction"])
    assert set(zip(edges["source"], edges["target"])) != set(zip(columns, columns[1:]))


def test_run_folder_mistakes_are_refused(evaluated: Evaluated, tmp_path: Path) -> None:
    other = resolve_method("random_regress", None, params={"alpha": 0.5})
    with pytest.raises(RunFolderError, match="another method"):
        evaluate(evaluated.package, other, evaluated.runs["random_regress"])
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("x")
    with pytest.raises(RunFolderError, match="not a run folder"):
        evaluate(evaluated.package, other, foreign)
    assert sorted(p.name for p in foreign.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("args, code, text", [
    (["--method", "pcc"], 1, "did you mean 'pc'"),
    (["--method", "pc", "--command", "python x.py {data} {out}"], 1, "exactly one"),
    (["--command", "python x.py {data}"], 1, "must name {data} and {out}"),
    (["--command", "no-such-program-xyz {data} {out}"], 1, "not found"),
    (["--method", "no_such_module_xyz:fit"], 1, "cannot import"),
    (["--method", "pc", "--param", "alpha"], 2, "key=value"),
    (["--method", "pc", "--param", "beta=1"], 1, "no parameter beta"),
    (["--method", "pc", "--split", "both"], 2, "--split"),
])
def test_cli_usage_errors(evaluated: Evaluated, tmp_path: Path, args: list[str], code: int,
                          text: str) -> None:
    result = runner.invoke(app, ["evaluate", str(evaluated.package), "--out",
                                 str(tmp_path / "r"), *args])
    assert result.exit_code == code, result.output
    assert text in result.output
    assert "Traceback" not in result.output


def test_dask_executor_gives_the_same_records(evaluated: Evaluated, tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    method = resolve_method("random_regress", None)
    fine = evaluated.ids["fine"]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        report = evaluate(evaluated.package, method, tmp_path / "dask",
                          EvalOptions(splits=("obs",), ids=(fine,), executor="dask",
                                      scheduler=cluster.scheduler_address))
    local = read_records(evaluated.runs["random_regress"])
    assert report.ran == 2
    for rec in report.records:
        label = f"{rec['id']}/{rec['split']}/rep-{rec['replicate']}"
        assert rec["metrics"] == local[label]["metrics"]
    assert read_release(evaluated.package)["version"] == read_run(tmp_path / "dask")[
        "release"]["version"]
