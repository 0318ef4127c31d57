"""Runs the Python client against a real sudoku-server.

The binary is SUDOKU_SERVER_BIN, else $CARGO_TARGET_DIR/debug/sudoku-server, else the
repository's target/debug/sudoku-server; a missing binary fails with the path it tried.
"""

import binascii
import os
import pathlib
import socket
import subprocess
import sys
import time

import grpc
import pytest

import sudoku_client

ROOT = pathlib.Path(__file__).resolve().parents[2]


def server_binary():
    if os.environ.get("SUDOKU_SERVER_BIN"):
        return pathlib.Path(os.environ["SUDOKU_SERVER_BIN"])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    if not target.is_absolute():
        target = ROOT / target
    return target / "debug" / "sudoku-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def address():
    """A running sudoku-server's HOST:PORT, ready to answer."""
    binary = server_binary()
    assert binary.is_file(), f"{binary} not found: run `cargo build -p sudoku-server` or set SUDOKU_SERVER_BIN"
    port = free_port()
    server = subprocess.Popen([binary, "--listen", f"127.0.0.1:{port}", "--metrics-listen", "off"])
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
            grpc.channel_ready_future(chan).result(timeout=20)
        yield f"127.0.0.1:{port}"
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0, "the server drains and exits 0 on SIGTERM"


@pytest.fixture(scope="module")
def channel(address):
    with grpc.insecure_channel(address) as chan:
        yield chan


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    return sudoku_client.generate(tmp_path_factory.mktemp("stubs"))


def is_solution(puzzle, solution):
    rows = [solution[r * 9:(r + 1) * 9] for r in range(9)]
    cols = ["".join(row[c] for row in rows) for c in range(9)]
    boxes = ["".join(rows[r][c] for r in range(br, br + 3) for c in range(bc, bc + 3))
             for br in (0, 3, 6) for bc in (0, 3, 6)]
    complete = all(sorted(unit) == list("123456789") for unit in rows + cols + boxes)
    keeps_givens = all(p in ".0" or p == s for p, s in zip(puzzle, solution))
    return complete and keeps_givens


def test_health(channel):
    assert sudoku_client.health(channel) == "SERVING"


def test_solve_one(channel, stubs):
    pb, pb_grpc = stubs
    answer = sudoku_client.solve(channel, pb, pb_grpc, sudoku_client.CLASSIC)
    assert answer.outcome == pb.OUTCOME_UNIQUE
    assert answer.solutions_found == 1
    assert is_solution(sudoku_client.CLASSIC, sudoku_client.to_line(answer.solution))


def test_invalid_puzzle_is_invalid_argument(channel, stubs):
    pb, pb_grpc = stubs
    bad = "33" + sudoku_client.CLASSIC[2:]
    with pytest.raises(grpc.RpcError) as failure:
        sudoku_client.solve(channel, pb, pb_grpc, bad)
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "appears twice in row 1" in failure.value.details()


def test_batch_stream(channel, stubs):
    pb, pb_grpc = stubs
    lines = [sudoku_client.CLASSIC] * 20 + ["." * 81]
    responses = sudoku_client.batch(channel, pb, pb_grpc, lines)
    assert [r.index for r in responses] == list(range(len(lines)))
    for response, line in zip(responses, lines):
        if line == sudoku_client.CLASSIC:
            assert response.outcome == pb.OUTCOME_UNIQUE
            assert is_solution(line, sudoku_client.to_line(response.solution))
        else:
            assert response.outcome == pb.OUTCOME_MULTIPLE
            assert is_solution(line, sudoku_client.to_line(response.solution))


def relabel(line, shift):
    """The puzzle with its digits shifted by `shift`: another puzzle with one solution."""
    return "".join("." if c in ".0" else str((int(c) - 1 + shift) % 9 + 1) for c in line)


@pytest.mark.parametrize("nibbles", [False, True])
def test_packed_stream(channel, stubs, nibbles):
    pb, pb_grpc = stubs
    lines = [relabel(sudoku_client.CLASSIC, i % 9) for i in range(5000)]
    lines[17] = "33" + lines[17][2:]
    results = sudoku_client.batch_packed(
        channel, pb, pb_grpc, lines, per_message=700, nibbles=nibbles
    )
    assert len(results) == len(lines)
    for i, ((outcome, solution), line) in enumerate(zip(results, lines)):
        if i == 17:
            assert outcome == pb.OUTCOME_INVALID
            assert "appears twice in row 1" in solution
        else:
            assert outcome == pb.OUTCOME_UNIQUE, i
            assert is_solution(line, solution), i


def test_a_large_answer_comes_in_pieces(channel, stubs):
    """An answer more than twice its request's size (here most puzzles refused, each with its
    reason) comes as several messages in any order, each keyed by `first`; batch_packed puts
    them in place. 2,000 puzzles: a stream takes at most 2,048 in one message."""
    pb, pb_grpc = stubs
    lines = [relabel(sudoku_client.CLASSIC, i % 9) for i in range(2000)]
    lines = [line if i % 10 == 0 else line[0] * 2 + line[2:] for i, line in enumerate(lines)]
    packed = binascii.unhexlify("".join(line.replace(".", "0") + "0" for line in lines))
    message = pb.PackedPuzzles(box_rows=3, box_cols=3, nibbles=packed)
    stub = pb_grpc.SudokuStub(channel)
    answers = sorted(stub.BatchSolvePacked(iter([message]), timeout=60), key=lambda a: a.first)
    assert len(answers) >= 2
    assert [a.first for a in answers] == [sum(len(b.outcomes) for b in answers[:k])
                                          for k in range(len(answers))]
    assert all(a.ByteSize() <= 2 * message.ByteSize() for a in answers)
    results = sudoku_client.batch_packed(channel, pb, pb_grpc, lines, per_message=2000,
                                         nibbles=True)
    for i, ((outcome, solution), line) in enumerate(zip(results, lines)):
        if i % 10:
            assert outcome == pb.OUTCOME_INVALID, i
            assert "appears twice in row 1" in solution, (i, solution)
        else:
            assert outcome == pb.OUTCOME_UNIQUE, i
            assert is_solution(line, solution), i


def test_a_message_larger_than_a_stream_takes_is_refused(channel, stubs):
    """3,000 puzzles in one message are more than a stream takes (2,048): OUT_OF_RANGE, saying
    what to do."""
    pb, pb_grpc = stubs
    line = sudoku_client.CLASSIC.replace(".", "0") + "0"
    message = pb.PackedPuzzles(box_rows=3, box_cols=3, nibbles=binascii.unhexlify(line * 3000))
    stub = pb_grpc.SudokuStub(channel)
    with pytest.raises(grpc.RpcError) as refused:
        list(stub.BatchSolvePacked(iter([message]), timeout=60))
    assert refused.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert "3000 puzzles" in refused.value.details()
    assert "send them in smaller messages" in refused.value.details()


def run_client(tmp_path, *args):
    """Runs sudoku_client.py as a user would, with its temporary files under tmp_path."""
    script = pathlib.Path(sudoku_client.__file__)
    env = dict(os.environ, TMPDIR=str(tmp_path))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_the_script_runs_and_leaves_no_stubs_behind(address, tmp_path):
    run = run_client(tmp_path, address)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("health: SERVING\n"), run.stdout
    assert "OUTCOME_UNIQUE" in run.stdout
    assert list(tmp_path.glob("sudoku-stubs-*")) == []


def test_a_bad_puzzle_argument_is_a_clear_error(tmp_path):
    bad = sudoku_client.CLASSIC[:12] + "#" + sudoku_client.CLASSIC[13:]
    run = run_client(tmp_path, "127.0.0.1:1", bad)
    assert run.returncode == 2
    assert run.stderr == ("error: the puzzle argument: row 2, column 4: '#' is not a digit 1-9 "
                          "or '.' for an empty cell\n"), run.stderr
    run = run_client(tmp_path, "127.0.0.1:1", sudoku_client.CLASSIC[:80])
    assert run.returncode == 2
    assert "the puzzle has 80 cells; a 9x9 grid has 81" in run.stderr
    assert "Traceback" not in run.stderr


def test_server_binary_honours_cargo_target_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("SUDOKU_SERVER_BIN", raising=False)
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path))
    assert server_binary() == tmp_path / "debug" / "sudoku-server"
    monkeypatch.setenv("CARGO_TARGET_DIR", "elsewhere")
    assert server_binary() == ROOT / "elsewhere" / "debug" / "sudoku-server"
    monkeypatch.delenv("CARGO_TARGET_DIR")
    assert server_binary() == ROOT / "target" / "debug" / "sudoku-server"
    monkeypatch.setenv("SUDOKU_SERVER_BIN", "/opt/sudoku-server")
    assert server_binary() == pathlib.Path("/opt/sudoku-server")
