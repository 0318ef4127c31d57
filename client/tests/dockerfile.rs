//! The Dockerfile's dependency layer builds the workspace from its manifests alone, with
//! placeholder sources. Cargo refuses the whole workspace when a member's manifest is missing
//! or one of its declared targets has no file, and nothing else builds that layer before a
//! `docker build`: these checks keep it in step with the manifests.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the client crate sits in the workspace")
        .to_path_buf()
}

fn read(path: &str) -> String {
    let path = root().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Dockerfile up to `COPY . .`: what the dependency layer sees.
fn dependency_layer() -> String {
    let dockerfile = read("Dockerfile");
    let (layer, _) = dockerfile
        .split_once("\nCOPY . .")
        .expect("the Dockerfile copies the whole tree after the dependency layer");
    layer.to_owned()
}

/// The quoted strings of the workspace's `members = [...]`.
fn members() -> Vec<String> {
    let manifest = read("Cargo.toml");
    let list = manifest
        .split_once("members")
        .and_then(|(_, rest)| rest.split_once('['))
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("Cargo.toml lists its workspace members");
    let members: Vec<String> = list
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect();
    assert!(
        members.len() >= 2,
        "members read from Cargo.toml: {members:?}"
    );
    members
}

/// The file of each `[[kind]]` target a manifest declares, relative to its crate, from its
/// `path` or the default cargo gives that kind (`benches/NAME.rs` for benches).
fn declared(manifest: &str, kind: &str, default_dir: &str) -> Vec<String> {
    let header = format!("[[{kind}]]");
    let mut found = Vec::new();
    for section in manifest.split("\n[").skip(1) {
        if !format!("[{section}").starts_with(&header) {
            continue;
        }
        let value = |key: &str| {
            section.lines().find_map(|line| {
                let (k, v) = line.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
            })
        };
        match (value("path"), value("name")) {
            (Some(path), _) => found.push(path),
            (None, Some(name)) => found.push(format!("{default_dir}/{name}.rs")),
            (None, None) => panic!("a [[{kind}]] without name or path: {section}"),
        }
    }
    found
}

#[test]
fn every_workspace_member_manifest_is_copied_into_the_dependency_layer() {
    let layer = dependency_layer();
    for member in members() {
        assert!(
            layer.contains(&format!("COPY {member}/Cargo.toml {member}/")),
            "the Dockerfile's dependency layer lacks `COPY {member}/Cargo.toml {member}/`"
        );
    }
}

#[test]
fn every_declared_target_has_a_placeholder_in_the_dependency_layer() {
    let layer = dependency_layer();
    for member in members() {
        let manifest = read(&format!("{member}/Cargo.toml"));
        let mut files = declared(&manifest, "bench", "benches");
        files.extend(declared(&manifest, "bin", "src/bin"));
        // The library and main binary cargo finds by itself, where the crate has them.
        for implicit in ["src/lib.rs", "src/main.rs"] {
            if root().join(member.as_str()).join(implicit).exists() {
                files.push(implicit.to_owned());
            }
        }
        assert!(!files.is_empty(), "{member} has no target");
        for file in files {
            let placeholder = format!("{member}/{file}");
            assert!(
                layer.contains(&placeholder),
                "the Dockerfile's dependency layer makes no placeholder {placeholder} \
                 (cargo refuses the workspace without it)"
            );
        }
    }
}

#[test]
fn the_manifest_reader_finds_benches_and_their_paths() {
    let manifest = "[package]\nname = \"x\"\n\n[[bench]]\nname = \"a\"\nharness = false\n\n\
                    [[bench]]\nname = \"b\"\npath = \"elsewhere/b.rs\"\n\n[[bin]]\nname = \"c\"\n";
    assert_eq!(
        declared(manifest, "bench", "benches"),
        ["benches/a.rs", "elsewhere/b.rs"]
    );
    assert_eq!(declared(manifest, "bin", "src/bin"), ["src/bin/c.rs"]);
}
