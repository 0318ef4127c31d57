"""A small Python client for the sudoku.v1 service: solve one puzzle, stream a batch, check health.

Stubs are generated from proto/sudoku/v1/sudoku.proto with grpcio-tools (see generate()).
Usage: python sudoku_client.py HOST:PORT [PUZZLE]
"""

import atexit
import binascii
import importlib
import pathlib
import shutil
import sys
import tempfile

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLASSIC = "3.65.84..52........87....31..3.1..8.9..863..5.5..9.6..13....25........74..52.63.."


def generate(out_dir=None):
    """Generates the sudoku.v1 stubs into out_dir and returns (messages, services) modules.
    Without out_dir they go to a temporary folder, removed when the process exits."""
    from grpc_tools import protoc

    if out_dir is None:
        out_dir = tempfile.mkdtemp(prefix="sudoku-stubs-")
        atexit.register(shutil.rmtree, out_dir, ignore_errors=True)
    out_dir = pathlib.Path(out_dir)
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


DIGITS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cells_of(line, box_rows=3, box_cols=3):
    """The cell values of a one-line puzzle ('.' or '0' for empty, then 1-9 and A-Z); a
    ValueError names the cell (row and column, 1-based) that is not one, or the count."""
    side = box_rows * box_cols
    if len(line) != side * side:
        raise ValueError(f"the puzzle has {len(line)} cells; a {side}x{side} grid has {side * side}")
    cells = []
    for i, c in enumerate(line):
        value = 0 if c in ".0" else DIGITS.find(c) + 1
        if c not in ".0" and not 1 <= value <= side:
            raise ValueError(
                f"row {i // side + 1}, column {i % side + 1}: {c!r} is not a digit 1-{DIGITS[side - 1]} "
                "or '.' for an empty cell")
        cells.append(value)
    return cells


def to_grid(pb, line, box_rows=3, box_cols=3):
    """A protobuf Grid from a one-line puzzle ('.' or '0' for empty)."""
    return pb.Grid(box_rows=box_rows, box_cols=box_cols, cells=cells_of(line, box_rows, box_cols))


def to_line(grid):
    """The one-line form of a protobuf Grid."""
    return "".join("." if v == 0 else DIGITS[v - 1] for v in grid.cells)


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


def batch_packed(channel, pb, pb_grpc, lines, per_message=1000, timeout=600.0, nibbles=False):
    """Solves one-line 9x9 puzzles through BatchSolvePacked, many puzzles per message: one
    byte per cell, the lines sent as they are; or, with nibbles=True, two cells a byte (half
    the bytes; the lines must then be digits and '.' only, as a bad character fails the whole
    call here instead of its one puzzle). A server takes at most its stream's window of puzzles
    in a message (2,048 by default, and fewer of a byte a cell: about 1,800); it refuses a
    larger one with OUT_OF_RANGE. Returns (outcome, solution line or None) per puzzle,
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
    # A large answer may come as several messages, each for a run of puzzles from `first`.
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
    """Runs the example; returns the exit status: 0, or 2 for a bad puzzle or a failed call."""
    address = argv[1] if len(argv) > 1 else "127.0.0.1:50051"
    puzzle = argv[2] if len(argv) > 2 else CLASSIC
    try:
        cells_of(puzzle)
    except ValueError as err:
        print(f"error: the puzzle argument: {err}", file=sys.stderr)
        return 2
    pb, pb_grpc = generate()
    try:
        with grpc.insecure_channel(address) as channel:
            print("health:", health(channel))
            answer = solve(channel, pb, pb_grpc, puzzle)
            print(pb.Outcome.Name(answer.outcome), to_line(answer.solution))
            for response in batch(channel, pb, pb_grpc, [puzzle] * 3):
                print(response.index, pb.Outcome.Name(response.outcome))
            for index, (outcome, solution) in enumerate(batch_packed(channel, pb, pb_grpc, [puzzle] * 3)):
                print(index, pb.Outcome.Name(outcome), solution)
    except grpc.RpcError as err:
        print(f"error: {address}: {err.code().name}: {err.details()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
