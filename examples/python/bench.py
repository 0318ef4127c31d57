"""Puzzles per second from Python, one stream each way, side by side on one server:
BatchSolve (a message per puzzle) against BatchSolvePacked (many puzzles per message, a byte
per cell, then two cells a byte).

Usage: python bench.py HOST:PORT FILE [LIMIT]   (FILE: one 81-character puzzle per line)
"""

import sys
import time

import grpc

import sudoku_client


def read_lines(path, limit):
    with open(path) as f:
        lines = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
    return lines[:limit]


def main(argv):
    address, path = argv[1], argv[2]
    limit = int(argv[3]) if len(argv) > 3 else 50_000
    lines = read_lines(path, limit)
    pb, pb_grpc = sudoku_client.generate()
    with grpc.insecure_channel(address) as channel:
        rates = {}
        for name, run in (
            ("BatchSolve", lambda: sudoku_client.batch(channel, pb, pb_grpc, lines[:10_000])),
            ("BatchSolvePacked", lambda: sudoku_client.batch_packed(channel, pb, pb_grpc, lines)),
            (
                "... nibbles",
                lambda: sudoku_client.batch_packed(channel, pb, pb_grpc, lines, nibbles=True),
            ),
        ):
            count = min(len(lines), 10_000) if name == "BatchSolve" else len(lines)
            best = 0.0
            for _ in range(3):
                start = time.perf_counter()
                run()
                best = max(best, count / (time.perf_counter() - start))
            rates[name] = best
            print(f"{name:>17}: {best:>10,.0f} puzzles/s ({count} puzzles, best of 3)")
        print(f"packed / per-message: {rates['BatchSolvePacked'] / rates['BatchSolve']:.1f}x")


if __name__ == "__main__":
    main(sys.argv)
