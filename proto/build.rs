//! Compiles the schema with protox (pure Rust, no `protoc`), once for code and reflection.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["sudoku/v1/sudoku.proto", "sudoku/v1/puzzles.proto"];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(protos, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    // Reflection serves this set; compile_fds writes none of its own.
    std::fs::write(
        out.join("sudoku_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        // Hand-written wire code for the message most of every request and answer is.
        .extern_path(".sudoku.v1.Grid", "crate::grid::Grid")
        // Decodes each message from one slice; see `src/codec.rs`.
        .codec_path("crate::codec::Codec")
        // A batch's packed cells, both ways, as shared buffers: a client keeps what it sent
        // without a copy, and a decoder hands them on from the received bytes (see
        // `src/codec.rs`); each message is some 80 KB, copied a dozen times on its way.
        .bytes(".sudoku.v1.PackedPuzzles.cells")
        .bytes(".sudoku.v1.PackedPuzzles.nibbles")
        .bytes(".sudoku.v1.PackedAnswers.solutions")
        .bytes(".sudoku.v1.PackedAnswers.solution_nibbles")
        .compile_fds(descriptors)?;
    Ok(())
}
