//! How long `#[constraint]` takes: the whole parse → model → derive → emit pipeline on each
//! builtin joint's declaration. Run with `cargo bench -p nape-codegen --bench expand`.

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../tests/support/builtins.rs"]
mod builtins;

fn expand_builtins(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand");
    for builtin in builtins::builtins() {
        group.bench_function(&builtin.name, |b| {
            b.iter(|| nape_codegen::expand(builtin.args.clone(), builtin.item.clone()));
        });
    }
    group.finish();
}

criterion_group!(benches, expand_builtins);
criterion_main!(benches);
