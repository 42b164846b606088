//! Writes the seed of the `from_bytes` target's corpus: the snapshot of the scene of
//! `tests/support/untrusted.rs` (every builtin joint, free slots, warm starts, a break).

#[path = "../../../tests/support/untrusted.rs"]
mod untrusted;

fn main() -> std::io::Result<()> {
    let bytes = untrusted::scene()
        .snapshot()
        .to_bytes(untrusted::registry())
        .expect("the builtin registry writes the scene");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/from_bytes");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("scene"), &bytes)?;
    println!("{} bytes in {}", bytes.len(), dir.join("scene").display());
    Ok(())
}
