//! What the server's benches share: knobs, datasets and the packed stream.

use solver_core::Grid;
use sudoku_proto::nibbles;
use sudoku_proto::pb::PackedPuzzles;
use sudoku_proto::pb::sudoku_client::SudokuClient;
use tokio_stream::StreamExt;
use tonic::codegen::StdError;

/// A number from the environment, or `default`.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Up to `limit` puzzles of a dataset; `None` after the shared rule for missing data.
pub fn load(name: &str, limit: usize) -> Option<Vec<Grid>> {
    let set = test_support::read_dataset(&test_support::data_file(name)?);
    Some(
        set.puzzles
            .iter()
            .take(limit)
            .filter_map(|l| l.parse().ok())
            .collect(),
    )
}

/// 9x9 `puzzles` packed `per_message` to a BatchSolvePacked message, two cells a byte as the
/// CLI sends them.
pub fn packed_messages(puzzles: &[Grid], per_message: usize) -> Vec<PackedPuzzles> {
    puzzles
        .chunks(per_message)
        .map(|part| {
            let mut bytes = Vec::with_capacity(part.len() * nibbles::packed_len(81));
            for puzzle in part {
                nibbles::pack(puzzle.cells(), &mut bytes);
            }
            PackedPuzzles {
                box_rows: 3,
                box_cols: 3,
                nibbles: bytes.into(),
                ..PackedPuzzles::default()
            }
        })
        .collect()
}

/// Sends `messages` on one BatchSolvePacked stream; the puzzles answered.
pub async fn packed_stream<S>(
    mut client: SudokuClient<S>,
    messages: Vec<PackedPuzzles>,
) -> anyhow::Result<usize>
where
    S: tonic::client::GrpcService<tonic::body::Body>,
    S::Error: Into<StdError>,
    S::ResponseBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    <S::ResponseBody as http_body::Body>::Error: Into<StdError> + Send,
{
    let mut answers = client
        .batch_solve_packed(tokio_stream::iter(messages))
        .await?
        .into_inner();
    let mut answered = 0;
    while let Some(answer) = answers.next().await {
        answered += answer?.outcomes.len();
    }
    Ok(answered)
}
