//! Builds the vendored tdoku (C++) when a C++ compiler is at hand; without one the crate still
//! builds, `tdoku::available()` is false and the benchmark says loudly that tdoku is skipped.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(tdoku)");
    println!("cargo::rerun-if-changed=tdoku");
    println!("cargo::rerun-if-env-changed=TDOKU_MARCH");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++14")
        .opt_level(3)
        .warnings(false)
        .file("tdoku/solver_dpll_triad_simd.cc")
        .file("tdoku/util.cc");
    // tdoku's own build: -O3 for the host CPU (its SIMD paths go up to AVX-512).
    // `TDOKU_MARCH` names another target, e.g. x86-64-v3 for valgrind, which lacks AVX-512.
    let march = std::env::var("TDOKU_MARCH").unwrap_or_else(|_| "native".into());
    build.flag_if_supported(format!("-march={march}"));
    match build.try_compile("tdoku") {
        Ok(()) => println!("cargo::rustc-cfg=tdoku"),
        Err(e) => println!("cargo::warning=tdoku not built, the benchmark will skip it: {e}"),
    }
}
