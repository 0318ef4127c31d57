"""A small Python client for the sudoku.v1 service: solve one puzzle, stream a batch, check health.

Stubs are generated from proto/sudoku/v1/sudoku.proto with grpcio-tools (see generate()).
Usage: python sudoku_client.py HOST:PORT [PUZZLE]
"""

import binascii
import importlib
import pathlib
import sys
import tempfile

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLASSIC = "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."


def generate(out_dir=None):
    """Generates the sudoku.v1 stubs into out_dir and returns (messages, services) modules."""
    from grpc_tools import protoc

    out_dir = pathlib.Path(out_dir or tempfile.mkdtemp(prefix="sudoku-stubs-"))
    proto_root = ROOT / "proto"
    status = protoc.main([
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        str(proto_root / "sudoku" / "v1" / "sudoku.proto"),
    ])
    if status != 0:
        raise RuntimeError(f"protoc failed with status {status}")
    sys.path.insert(0, str(out_dir))
    return (importlib.import_module("sudoku.v1.sudoku_pb2"),
            importlib.import_module("sudoku.v1.sudoku_pb2_grpc"))


def to_grid(pb, line, box_rows=3, box_cols=3):
    """A protobuf Grid from a one-line puzzle ('.' or '0' for empty)."""
    cells = [0 if c in ".0" else int(c, 36) for c in line]
    return pb.Grid(box_rows=box_rows, box_cols=box_cols, cells=cells)


def to_line(grid):
    """The one-line form of a protobuf Grid."""
    return "".join("." if v == 0 else "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v - 1] for v in grid.cells)


def solve(channel, pb, pb_grpc, line, timeout=10.0):
    """Solves one puzzle with the unary Solve call."""
    stub = pb_grpc.SudokuStub(channel)
    return stub.Solve(pb.SolveRequest(id="one", puzzle=to_grid(pb, line)), timeout=timeout)


def batch(channel, pb, pb_grpc, lines, timeout=60.0):
    """Streams puzzles through BatchSolve; returns the responses ordered by index."""
    stub = pb_grpc.SudokuStub(channel)
    requests = (pb.SolveRequest(id=str(i), puzzle=to_grid(pb, line)) for i, line in enumerate(lines))
    return sorted(stub.BatchSolve(requests, timeout=timeout), key=lambda r: r.index)


# Cell values 0..9 as text: a packed answer's solutions become puzzle-file lines in one call.
VALUES_TO_TEXT = bytes.maketrans(bytes(range(10)), b".123456789")


def batch_packed(channel, pb, pb_grpc, lines, per_message=2000, timeout=600.0, nibbles=False):
    """Solves one-line 9x9 puzzles through BatchSolvePacked, many puzzles per message: one
    byte per cell, the lines sent as they are; or, with nibbles=True, two cells a byte (half
    the bytes; the lines must then be digits and '.' only, as a bad character fails the whole
    call here instead of its one puzzle). Returns (outcome, solution line or None) per puzzle,
    in input order; invalid puzzles come back as (OUTCOME_INVALID, reason)."""
    stub = pb_grpc.SudokuStub(channel)

    def messages():
        for start in range(0, len(lines), per_message):
            chunk = lines[start:start + per_message]
            if nibbles:
                # Cell values are hex digits, so a line with '.' as '0' and one '0' to pad it
                # to whole bytes is the puzzle's nibbles in hex.
                packed = binascii.unhexlify("".join(line.replace(".", "0") + "0" for line in chunk))
                yield pb.PackedPuzzles(box_rows=3, box_cols=3, nibbles=packed)
            else:
                yield pb.PackedPuzzles(box_rows=3, box_cols=3, cells="".join(chunk).encode())

    results = [None] * len(lines)
    for answer in stub.BatchSolvePacked(messages(), timeout=timeout):
        if nibbles:
            text, size = binascii.hexlify(answer.solution_nibbles).decode(), 82
        else:
            text, size = answer.solutions.translate(VALUES_TO_TEXT).decode(), 81
        for k, outcome in enumerate(answer.outcomes):
            solution = text[k * size:k * size + 81]
            results[answer.first + k] = (outcome, None if solution.strip(".0") == "" else solution)
        for error in answer.errors:
            results[answer.first + error.offset] = (pb.OUTCOME_INVALID, error.error.message)
    return results


def health(channel):
    """The server's overall health status name."""
    stub = health_pb2_grpc.HealthStub(channel)
    answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=5.0)
    return health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)


def main(argv):
    address = argv[1] if len(argv) > 1 else "127.0.0.1:50051"
    puzzle = argv[2] if len(argv) > 2 else CLASSIC
    pb, pb_grpc = generate()
    with grpc.insecure_channel(address) as channel:
        print("health:", health(channel))
        answer = solve(channel, pb, pb_grpc, puzzle)
        print(pb.Outcome.Name(answer.outcome), to_line(answer.solution))
        for response in batch(channel, pb, pb_grpc, [puzzle] * 3):
            print(response.index, pb.Outcome.Name(response.outcome))
        for index, (outcome, solution) in enumerate(batch_packed(channel, pb, pb_grpc, [puzzle] * 3)):
            print(index, pb.Outcome.Name(outcome), solution)


if __name__ == "__main__":
    main(sys.argv)
