//! How long `#[constraint]` takes: the whole parse → model → derive → emit pipeline on each
//! builtin joint's declaration, and on random constraints from 10 to 2,000 nodes (four per
//! size, rich in repeated factors and shared sub-expressions; each iteration expands all
//! four). Run with `cargo bench -p nape-codegen --bench expand`.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use proc_macro2::TokenStream;

#[path = "../tests/support/builtins.rs"]
mod builtins;
#[path = "../tests/support/random_constraints.rs"]
mod random_constraints;

fn expand_builtins(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand");
    for builtin in builtins::builtins() {
        group.bench_function(&builtin.name, |b| {
            b.iter(|| nape_codegen::expand(builtin.args.clone(), builtin.item.clone()));
        });
    }
    group.finish();
}

const SIZES: [usize; 8] = [10, 20, 50, 100, 200, 500, 1_000, 2_000];
const SEEDS: [u64; 4] = [1, 2, 3, 4];

fn expand_by_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("expand_size");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    let item: TokenStream = random_constraints::ITEM.parse().expect("tokens");
    for size in SIZES {
        let cases: Vec<(TokenStream, usize)> = SEEDS
            .iter()
            .map(|&seed| {
                let generated = random_constraints::constraint(seed, size);
                (generated.args.parse().expect("tokens"), generated.nodes)
            })
            .collect();
        let nodes: Vec<usize> = cases.iter().map(|&(_, n)| n).collect();
        eprintln!("size {size}: nodes {nodes:?}");
        group.bench_with_input(BenchmarkId::from_parameter(size), &cases, |b, cases| {
            b.iter(|| {
                for (args, _) in cases {
                    let output = nape_codegen::expand(args.clone(), item.clone());
                    assert!(!output.to_string().contains("compile_error"));
                }
            });
        });
    }
    group.finish();
}

criterion_group!(benches, expand_builtins, expand_by_size);
criterion_main!(benches);
