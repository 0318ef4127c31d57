"""Runs the Python client against a real sudoku-server (SUDOKU_SERVER_BIN, or target/debug)."""

import os
import pathlib
import socket
import subprocess
import time

import grpc
import pytest

import sudoku_client

ROOT = pathlib.Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def channel():
    binary = os.environ.get("SUDOKU_SERVER_BIN", str(ROOT / "target" / "debug" / "sudoku-server"))
    port = free_port()
    server = subprocess.Popen([binary, "--listen", f"127.0.0.1:{port}", "--metrics-listen", "off"])
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
            grpc.channel_ready_future(chan).result(timeout=20)
            yield chan
    finally:
        server.terminate()
        assert server.wait(timeout=30) == 0, "the server drains and exits 0 on SIGTERM"


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
