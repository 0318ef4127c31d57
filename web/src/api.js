// The server's Puzzles service over gRPC-Web, on the origin that served this page.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { Puzzles } from "../gen/sudoku/v1/puzzles_pb.js";

const transport = createGrpcWebTransport({ baseUrl: location.origin, useBinaryFormat: true });

/** The generated client of sudoku.v1.Puzzles. */
export const puzzles = createClient(Puzzles, transport);

/** A proto Grid of the classic 9x9 shape from 81 cells. */
export const grid = (cells) => ({ boxRows: 3, boxCols: 3, cells });

