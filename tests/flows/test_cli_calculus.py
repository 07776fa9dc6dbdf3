"""The model commands as a user types them (bundled data, no warehouse yet)."""

import csv

from typer.testing import CliRunner

from flows.cli import app

runner = CliRunner()


def test_whatif_answers_the_seed_question(tmp_path):
    result = runner.invoke(
        app,
        [
            "whatif",
            "-w",
            "dflash-qwen36-27b",
            "-b",
            "ws-rtxpro6000-4:4/3+1",
            "--measured",
            "14800",
            "--measured-days",
            "8.8",
            "-c",
            "hgx-b200-8:4@3.4x",
            "--data-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "faster? yes" in result.output and "cheaper?" in result.output
    assert "Assumptions:" in result.output and "0.4 draft positions per target token" in result.output


def test_whatif_rejects_an_unknown_platform_with_the_known_ones(tmp_path):
    result = runner.invoke(
        app, ["whatif", "-w", "dflash-qwen36-27b", "-b", "nope-4", "-c", "hgx-b200-8:4", "--data-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "unknown platform 'nope-4'" in result.output and "hgx-b200-8" in result.output


def test_predict_writes_every_row(tmp_path):
    cases = tmp_path / "cases.csv"
    cases.write_text(
        "benchmark,scenario,task,gpu_type,accelerator_name,gpu_count,nodes,precision_declared,result_value\n"
        "llama2-70b-99,Offline,inference,H200-SXM,NVIDIA H200-SXM-141GB,8,1,fp8,\n"
        "llama2-70b-99,Offline,inference,,Quantum Abacus,8,1,,\n"
    )
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["predict", "--cases", str(cases), "--out", str(out), "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2
    # the bundled set holds MLPerf v4.1 results of 8-GPU H200 systems: this one is measured
    assert float(rows[0]["predicted_tokens_per_s"]) > 0 and rows[0]["confidence"] == "measured"
    assert rows[1]["predicted_tokens_per_s"] == "" and rows[1]["reason"] == (
        "unknown GPU: 'Quantum Abacus': no catalog accelerator 'Quantum Abacus' (add it to gpu.csv)"
    )


def test_predict_refuses_a_cases_file_it_cannot_read_in_one_sentence(tmp_path):
    """Each of these was a traceback; none reaches the model (no warehouse is read or made)."""
    ragged, empty = tmp_path / "ragged.csv", tmp_path / "empty.csv"
    ragged.write_text("benchmark,scenario\nllama2-70b-99,Offline,8\n")
    empty.write_text("")
    for cases, out, code, says in [
        ("/dev/null", tmp_path / "o.csv", 2, "predict: /dev/null is not a file"),
        (tmp_path / "none.csv", tmp_path / "o.csv", 2, f"predict: no file at {tmp_path / 'none.csv'}"),
        (ragged, tmp_path / "o.csv", 1, f"predict: {ragged} could not be read as a CSV of cases: found more fields"),
        (empty, tmp_path / "o.csv", 1, f"predict: {empty} could not be read as a CSV of cases: empty CSV"),
        (ragged, tmp_path / "nowhere" / "o.csv", 1, "could not be read"),  # the input is judged first
    ]:
        result = runner.invoke(app, ["predict", "--cases", str(cases), "--out", str(out), "--data-dir", str(tmp_path)])
        assert result.exit_code == code and says in result.output, result.output
    good = tmp_path / "good.csv"
    good.write_text("benchmark,scenario\n")
    result = runner.invoke(app, ["predict", "--cases", str(good), "--out", str(tmp_path / "nowhere" / "o.csv"),
                                 "--data-dir", str(tmp_path)])
    assert result.exit_code == 2 and f"predict: no folder {tmp_path / 'nowhere'} to write o.csv into" in result.output
    assert not (tmp_path / "warehouse.duckdb").exists()


def test_backtest_prints_errors_per_kind_and_accelerator(tmp_path):
    result = runner.invoke(app, ["backtest", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "per workload kind" in result.output and "per accelerator held out" in result.output
    assert "H100-SXM" in result.output and "MI300X" in result.output
