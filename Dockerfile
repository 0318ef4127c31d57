# Build with the Rust image, run from a slim image as a non-root user.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p sudoku-server

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --no-create-home sudoku
COPY --from=build /src/target/release/sudoku-server /usr/local/bin/sudoku-server
USER 10001
# gRPC, then Prometheus metrics.
EXPOSE 50051 9090
ENV SUDOKU_LISTEN=0.0.0.0:50051 \
    SUDOKU_METRICS_LISTEN=0.0.0.0:9090 \
    SUDOKU_LOG_FORMAT=json
ENTRYPOINT ["/usr/local/bin/sudoku-server"]
