# Build with the Rust image, run from a slim image as a non-root user.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src

# Dependencies first, in a layer of their own: the manifests, the lockfile and the proto (its
# build script runs protox) with placeholder sources, so a source change rebuilds only our
# crates. A new workspace member needs its manifest and placeholders here too (the build
# fails loudly without them).
COPY Cargo.toml Cargo.lock ./
# The build flags (x86-64-v2), before the dependencies are built with them.
COPY .cargo .cargo
COPY solver-core/Cargo.toml solver-core/
COPY proto/Cargo.toml proto/build.rs proto/
COPY proto/sudoku proto/sudoku
COPY server/Cargo.toml server/
COPY client/Cargo.toml client/
COPY test-support/Cargo.toml test-support/
COPY compress/Cargo.toml compress/
COPY solver-bench/Cargo.toml solver-bench/
# Cargo refuses a manifest whose [[bench]] file is missing: every declared bench gets a
# placeholder (client/tests/dockerfile.rs checks this list against the manifests).
RUN mkdir -p solver-core/src solver-core/benches proto/src server/src server/benches \
         client/src client/benches test-support/src compress/src solver-bench/src \
         solver-bench/benches \
    && touch solver-core/src/lib.rs proto/src/lib.rs server/src/lib.rs test-support/src/lib.rs \
         compress/src/lib.rs solver-bench/src/lib.rs \
    && for main in server/src/main.rs client/src/main.rs \
         solver-core/benches/generate.rs solver-core/benches/rate.rs \
         server/benches/grpc.rs server/benches/cpu.rs client/benches/batch.rs \
         solver-bench/benches/solve.rs solver-bench/build.rs; do \
         echo 'fn main() {}' > "$main"; \
       done \
    && cargo build --release --locked -p sudoku-server \
    && rm -rf solver-core/src solver-core/benches proto/src server/src server/benches \
         client/src client/benches test-support/src compress/src solver-bench

COPY . .
# COPY keeps the sources' old timestamps: make them newer than the placeholder build.
RUN find solver-core proto server client test-support compress -name '*.rs' -exec touch {} + \
    && cargo build --release --locked -p sudoku-server

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
