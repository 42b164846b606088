use super::*;

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "beyond")]
fn an_access_beyond_an_array_is_caught_in_debug_builds() {
    let v = [0.0; 4];
    let _ = super::kernels::array::<2>(&v, 3);
}

#[test]
fn inverse_of_a_small_matrix_and_of_a_singular_one() {
    let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
    let mut inv = [0.0; 9];
    invert(&a, 3, &mut inv);
    for i in 0..3 {
        for j in 0..3 {
            let p: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
            assert!(
                (p - f64::from(u8::from(i == j))).abs() < 1e-12,
                "{i},{j}: {p}"
            );
        }
    }
    let singular = [1.0, 2.0, 2.0, 4.0];
    let mut out = [0.0; 4];
    invert(&singular, 2, &mut out);
    assert!(out.iter().all(|x| x.is_finite()));
}

/// Three islands (a lone body, a pair, a three-link chain), each row `v_y` of a body
/// or the difference of two: after one solve every row holds exactly, whichever
/// island the elimination visits first.
#[test]
fn several_islands_solve_exactly() {
    let up = |a: Option<usize>, b: usize| {
        let mut bodies = [9u32; 8];
        bodies[0] = a.map_or(9, |a| a as u32);
        bodies[1] = b as u32;
        Link {
            rows: 1,
            bodies,
            slots: 2,
        }
    };
    let links = [
        up(None, 0),
        up(None, 1),
        up(Some(1), 2),
        up(None, 3),
        up(Some(3), 4),
        up(Some(4), 5),
    ];
    let mut dynamic = [true; 10];
    dynamic[9] = false;
    let mut system = DirectSystem::default();
    let slots = system.rebuild(&links, &dynamic);
    system.reset_rows();
    for slot in &slots {
        let slot = slot.expect("acyclic");
        system.set_row(
            &slot,
            0,
            &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]],
            [0.0; 2],
            0.0,
        );
    }
    let inverse: Vec<InverseMass> = (0..10)
        .map(|i| InverseMass {
            mass: if i == 9 { 0.0 } else { 1.0 / (1.0 + i as f32) },
            inertia: 1.0,
        })
        .collect();
    system.factor(Islands::All, &inverse);
    let mut v: Vec<Velocity> = (0..10)
        .map(|i| Velocity {
            linear: glam::Vec2::new(0.0, -(i as f32) - 1.0),
            angular: 0.0,
        })
        .collect();
    v[9] = Velocity::default();
    system.solve(0, Islands::All, &inverse, &mut v);
    for (i, body) in v.iter().enumerate().take(6) {
        assert!(body.linear.y.abs() < 1e-5, "body {i}: {body:?}");
    }
}

/// Two bodies on a vertical chain from a static anchor (rows along x and y): the direct
/// solve gives velocities with `J v = 0` exactly.
#[test]
fn a_chain_of_unit_rows_solves_exactly() {
    // Bodies 0, 1; link 0: (static, 0), link 1: (0, 1); one row each, along y.
    let links = [
        Link {
            rows: 1,
            bodies: [5, 0, 0, 0, 0, 0, 0, 0],
            slots: 2,
        },
        Link {
            rows: 1,
            bodies: [0, 1, 0, 0, 0, 0, 0, 0],
            slots: 2,
        },
    ];
    let dynamic = [true, true, false, false, false, false];
    let mut system = DirectSystem::default();
    let slots = system.rebuild(&links, &dynamic);
    let (s0, s1) = (slots[0].unwrap(), slots[1].unwrap());
    system.reset_rows();
    // Row 0: v0.y = 0 (the anchor is static). Row 1: v1.y − v0.y = 0.
    system.set_row(&s0, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
    system.set_row(&s1, 0, &[[0.0, -1.0, 0.0], [0.0, 1.0, 0.0]], [0.0; 2], 0.0);
    let inverse = [
        InverseMass {
            mass: 1.0,
            inertia: 1.0,
        },
        InverseMass {
            mass: 0.5,
            inertia: 1.0,
        },
    ];
    system.factor(Islands::All, &inverse);
    let mut v = [Velocity::default(); 2];
    v[0].linear.y = -1.0;
    v[1].linear.y = -3.0;
    system.solve(0, Islands::All, &inverse, &mut v);
    assert!(
        v[0].linear.y.abs() < 1e-6 && v[1].linear.y.abs() < 1e-6,
        "{v:?}"
    );
    // The top link carries both bodies' momentum: λ0 = 1·1 + 2·3 = 7.
    let impulse = |slot: &DirectSlot| {
        let mut out = [0.0f32];
        system.read_impulses(slot, &[true], &mut out);
        out[0]
    };
    assert!((impulse(&s0) - 7.0).abs() < 1e-5);
    assert!((impulse(&s1) - 6.0).abs() < 1e-5);
}

/// One link per `(bodies, rows)` of `spec`, each between two body slots.
fn two_body_links(spec: &[([u32; 2], usize)]) -> Vec<Link> {
    spec.iter()
        .map(|&(b, rows)| {
            let mut bodies = [0u32; MAX_BODIES];
            bodies[..2].copy_from_slice(&b);
            Link {
                rows,
                bodies,
                slots: 2,
            }
        })
        .collect()
}

/// Deterministic values spread over [−1, 1] (xorshift from `seed`).
fn spread(mut seed: u32) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 2001) as f32 / 1000.0 - 1.0
    }
}

/// A tree island with every kind of node and edge (a body shared by four constraints,
/// a super node of two constraints, a three-row one, a static anchor), stiff and
/// soft rows and a mass ratio of 1e5: the impulses of one velocity solve,
/// `(J M⁻¹ Jᵀ + Γ) μ = −(J v + b)`, and of one projection, `(J M⁻¹ Jᵀ + Γ) μ = −C`,
/// match a dense solve.
#[test]
fn a_tree_island_matches_the_dense_solve() {
    matches_the_dense_solve(&TREE, 8, 0, 1e-7, (1e-10, 1e-8));
}

/// (bodies, rows) of each constraint of the tree island; the last two share bodies 4 and 5.
const TREE: [([u32; 2], usize); 8] = [
    ([7, 0], 2),
    ([0, 1], 2),
    ([1, 2], 1),
    ([1, 3], 2),
    ([1, 4], 3),
    ([4, 5], 2),
    ([5, 4], 1),
    ([5, 6], 2),
];

/// The tree island pinned to the static body at a leaf (body 6, the island's root now)
/// and at its hub (body 1, held by four super nodes), at the solver's own stiff
/// compliance (1e-9): the hub's pin and the tree's static anchor below it close loops
/// through the ground and are solved through the
/// Schur complement, alone and with the island's other loops. Its heavy body hangs from
/// the hub through a soft row here: a stiff row from a body node to a body 1e5 times
/// heavier leaves the tree's solve 1e-7 of the load (the body node is held still while
/// the rows below it are eliminated, and the heavy body barely moves them), which the
/// loop rows' responses carry to a few 1e-3 of their impulses.
#[test]
fn a_pinned_hub_matches_the_dense_solve() {
    let light: Vec<_> = TREE
        .iter()
        .map(|&(b, rows)| (b.map(|x| [0, 1, 3, 2, 4, 5, 6, 7][x as usize]), rows))
        .collect();
    let pins = [([7, 6], 1), ([7, 1], 2)];
    let spec: Vec<_> = pins.iter().chain(&light).copied().collect();
    matches_the_dense_solve(&spec, 8, 2, 1e-9, (1e-12, 1e-7));
    let closing = [([6, 1], 2), ([2, 3], 1), ([3, 5], 3), ([6, 0], 2)];
    let spec: Vec<_> = spec.iter().chain(&closing).copied().collect();
    matches_the_dense_solve(&spec, 8, 6, 1e-9, (1e-12, 1e-7));
}

/// The same island closed into loops: a ring through the shared body, a second loop
/// through the super node of two constraints, a chord across the ring with three rows,
/// and a loop through the static anchor's body, solved through the tree's Schur
/// complement, match the dense solve.
#[test]
fn an_island_with_loops_matches_the_dense_solve() {
    let closing = [([6, 1], 2), ([2, 3], 1), ([3, 5], 3), ([6, 0], 2)];
    let spec: Vec<_> = TREE.iter().chain(&closing).copied().collect();
    matches_the_dense_solve(&spec, 8, 4, 1e-7, (1e-9, 1e-6));
    matches_the_dense_solve(&spec, 8, 4, 1e-3, (1e-13, 1e-10));
}

/// Builds an island of `bodies` bodies (the last static) from `spec`, with random rows
/// (every other constraint's compliance 1e-3, the others' `stiff`), and checks its
/// velocity solve and projection against a dense solve; `loops` super nodes close loops.
fn matches_the_dense_solve(
    spec: &[([u32; 2], usize)],
    bodies: usize,
    loops: usize,
    stiff: f32,
    tolerance: (f64, f64),
) {
    let fixed = bodies as u32 - 1;
    let columns = fixed as usize * 3;
    let links = two_body_links(spec);
    let mut dynamic = vec![true; bodies];
    dynamic[fixed as usize] = false;
    let mut system = DirectSystem::default();
    let slots = system.rebuild(&links, &dynamic);
    let closing = system.supers.iter().filter(|s| s.closes_loop).count();
    assert_eq!(closing, loops, "loop-closing super nodes");
    let inverse: Vec<InverseMass> = (0..bodies)
        .map(|i| match i {
            _ if i == fixed as usize => InverseMass {
                mass: 0.0,
                inertia: 0.0,
            },
            3 => InverseMass {
                mass: 1e-5,
                inertia: 2e-5,
            },
            _ => InverseMass {
                mass: 1.0 / (1.0 + i as f32),
                inertia: 3.0 / (1.0 + i as f32),
            },
        })
        .collect();
    // Deterministic, well-spread entries.
    let mut next = spread(0x2545_f491);
    let velocities: Vec<Velocity> = (0..bodies)
        .map(|i| Velocity {
            linear: glam::Vec2::new(next(), next()),
            angular: if i == fixed as usize { 0.0 } else { next() },
        })
        .collect();
    // Dense J (rows × 3 per dynamic body), Γ and b, written alongside.
    let total: usize = spec.iter().map(|s| s.1).sum();
    let mut jacobian = vec![vec![0.0f64; columns]; total];
    let (mut gamma, mut bias) = (vec![0.0f64; total], vec![0.0f64; total]);
    let mut error = vec![0.0f64; total];
    system.reset_rows();
    let mut row = 0;
    for (l, slot) in slots.iter().enumerate() {
        let slot = slot.expect("solved exactly");
        for r in 0..spec[l].1 {
            let j = [[next(), next(), next()], [next(), next(), next()]];
            let b = next();
            system.set_row(&slot, r, &j, [b, 0.0], 0.0);
            let e = next();
            system.set_position_error(&slot, r, e);
            let compliance = if l % 2 == 0 { 1e-3 } else { stiff };
            system.set_compliance(&slot, r, r, compliance);
            for (k, &body) in spec[l].0.iter().enumerate() {
                if body != fixed {
                    for d in 0..3 {
                        jacobian[row][body as usize * 3 + d] += f64::from(j[k][d]);
                    }
                }
            }
            gamma[row] = f64::from(compliance);
            bias[row] = f64::from(b);
            error[row] = f64::from(e);
            row += 1;
        }
    }
    system.factor(Islands::All, &inverse);
    let mut v = velocities.clone();
    system.solve(0, Islands::All, &inverse, &mut v);

    let weight = |c: usize| {
        let inv = inverse[c / 3];
        f64::from(if c % 3 == 2 { inv.inertia } else { inv.mass })
    };
    let speed = |c: usize| {
        let v = velocities[c / 3];
        f64::from([v.linear.x, v.linear.y, v.angular][c % 3])
    };
    let mut matrix = vec![vec![0.0f64; total]; total];
    for r in 0..total {
        for q in 0..total {
            matrix[r][q] = (0..columns)
                .map(|c| jacobian[r][c] * weight(c) * jacobian[q][c])
                .sum::<f64>();
        }
        matrix[r][r] += gamma[r];
    }
    let velocity_rhs: Vec<f64> = (0..total)
        .map(|r| -(bias[r] + (0..columns).map(|c| jacobian[r][c] * speed(c)).sum::<f64>()))
        .collect();
    let position_rhs: Vec<f64> = error.iter().map(|e| -e).collect();
    // The impulses per row, in constraint order, from per-row values of a super node.
    let per_row = |values: &dyn Fn(usize, usize) -> f64| {
        let mut out = Vec::new();
        for (l, slot) in slots.iter().enumerate() {
            let slot = slot.expect("solved exactly");
            for r in 0..spec[l].1 {
                out.push(values(slot.node as usize, slot.row as usize + r));
            }
        }
        out
    };
    let impulses = per_row(&|s, r| system.lambda[system.supers[s].row_offset + r]);
    check_dense_solve("velocity", &matrix, &velocity_rhs, &impulses, tolerance);
    // What the solve gave each body, against `M⁻¹ Jᵀ μ` of its impulses.
    for c in 0..columns {
        let applied = (0..total)
            .map(|r| jacobian[r][c] * impulses[r])
            .sum::<f64>()
            * weight(c);
        let (before, after) = (velocities[c / 3], v[c / 3]);
        let got = f64::from([after.linear.x, after.linear.y, after.angular][c % 3])
            - f64::from([before.linear.x, before.linear.y, before.angular][c % 3]);
        assert!(
            (got - applied).abs() < 1e-5 * (1.0 + applied.abs()),
            "velocity {c}: {got} against {applied}"
        );
    }

    let mut poses = vec![crate::types::Pose::default(); bodies];
    system.project(Islands::All, &inverse, &mut poses);
    let projected = |s: usize, r: usize| {
        if let Some(node) = system
            .nodes
            .iter()
            .find(|n| matches!(n.kind, NodeKind::Super(t) if t as usize == s))
        {
            return system.solution[node.dof_offset + r];
        }
        let g = system
            .loops
            .rows
            .iter()
            .position(|&(t, q)| t as usize == s && q == r)
            .expect("a super node outside the tree closes a loop");
        system.loops.solution[g]
    };
    let projection = per_row(&projected);
    check_dense_solve("projection", &matrix, &position_rhs, &projection, tolerance);
}

/// `got` solves `matrix · x = rhs` to a normwise residual below `tolerance` and matches a
/// dense pivoting solve to `agreement` of the largest component. (The tree elimination does
/// not pivot; on the stiff, ill-conditioned island above both measure ≈ 1e-11 and
/// ≈ 1e-9 relative on the worst row, as before the kernels were specialised. Closed into
/// loops, the rows about its shared body, which hold to 1e-7 in the tree alone, hold to
/// 1e-5: the loop rows' responses are the tree's solves, and the normwise residual is
/// 1.7e-10, the worst row 1.4e-7 off the pivoting solve.)
fn check_dense_solve(
    name: &str,
    matrix: &[Vec<f64>],
    rhs: &[f64],
    got: &[f64],
    (tolerance, agreement): (f64, f64),
) {
    let n = rhs.len();
    let mut a: Vec<Vec<f64>> = matrix
        .iter()
        .zip(rhs)
        .map(|(row, b)| row.iter().copied().chain([*b]).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap();
        a.swap(col, pivot);
        for r in 0..n {
            if r != col {
                let f = a[r][col] / a[col][col];
                for c in col..=n {
                    a[r][c] -= f * a[col][c];
                }
            }
        }
    }
    let expected: Vec<f64> = (0..n).map(|r| a[r][n] / a[r][r]).collect();
    let largest = |x: &[f64]| x.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let matrix_norm = matrix
        .iter()
        .map(|row| row.iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let residual: Vec<f64> = matrix
        .iter()
        .zip(rhs)
        .map(|(row, b)| row.iter().zip(got).map(|(m, x)| m * x).sum::<f64>() - b)
        .collect();
    let backward_error = largest(&residual) / (matrix_norm * largest(got) + largest(rhs));
    assert!(
        backward_error < tolerance,
        "{name}: residual {backward_error:e}"
    );
    for (row, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert!(
            (g - e).abs() <= agreement * largest(&expected),
            "{name}, row {row}: {g} against {e}"
        );
    }
}

#[test]
fn a_paired_projection_and_solve_equal_the_two_apart_bit_for_bit() {
    // Two islands: a chain of three bodies from a static one, and a tree of four.
    const STATIC: u32 = 7;
    let spec: [([u32; 2], usize); 6] = [
        ([STATIC, 0], 2),
        ([0, 1], 2),
        ([1, 2], 1),
        ([3, 4], 2),
        ([3, 5], 3),
        ([3, 6], 2),
    ];
    let links = two_body_links(&spec);
    let mut dynamic = [true; 8];
    dynamic[STATIC as usize] = false;
    let inverse: Vec<InverseMass> = (0..8)
        .map(|i| InverseMass {
            mass: if i == 7 { 0.0 } else { 1.0 / (1.0 + i as f32) },
            inertia: if i == 7 { 0.0 } else { 2.0 / (1.0 + i as f32) },
        })
        .collect();
    let build = || {
        let mut next = spread(0x1b87_3593);
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&links, &dynamic);
        system.reset_rows();
        for (l, slot) in slots.iter().enumerate() {
            let slot = slot.expect("acyclic");
            for r in 0..spec[l].1 {
                let j = [[next(), next(), next()], [next(), next(), next()]];
                system.set_row(&slot, r, &j, [next(), next()], 0.0);
                system.set_position_error(&slot, r, next());
                system.set_compliance(&slot, r, r, if l % 2 == 0 { 1e-3 } else { 0.0 });
            }
        }
        system.factor(Islands::All, &inverse);
        let velocities: Vec<Velocity> = (0..8)
            .map(|_| Velocity {
                linear: glam::Vec2::new(next(), next()),
                angular: next(),
            })
            .collect();
        (system, velocities)
    };
    // Only the tree is projected: the chain's velocities are solved alone.
    let marks = |system: &mut DirectSystem| {
        system.clear_marks();
        let tree = system.island_of[system.supers.len() - 1] as usize;
        let mut which = vec![false; system.island_count()];
        which[tree] = true;
        system.mark_islands(&which);
    };
    let (mut apart, mut v_apart) = build();
    let mut poses_apart = vec![crate::types::Pose::default(); 8];
    marks(&mut apart);
    apart.project(Islands::Marked, &inverse, &mut poses_apart);
    apart.solve(1, Islands::All, &inverse, &mut v_apart);

    let (mut paired, mut v_paired) = build();
    let mut poses_paired = vec![crate::types::Pose::default(); 8];
    marks(&mut paired);
    let count = paired.project_and_solve(1, &inverse, &mut poses_paired, &mut v_paired);
    assert!(!paired.factored_since(count));

    let bits = |v: &[Velocity]| -> Vec<u32> {
        v.iter()
            .flat_map(|v| [v.linear.x, v.linear.y, v.angular].map(f32::to_bits))
            .collect()
    };
    assert_eq!(bits(&v_paired), bits(&v_apart));
    assert!(v_paired.iter().zip(&build().1).any(|(a, b)| a != b));
    let pose_bits = |p: &[crate::types::WorldPose]| -> Vec<u64> {
        p.iter()
            .flat_map(|p| {
                let [c, s] = [p.cos, p.sin].map(|x| u64::from(x.to_bits()));
                let [x, y] = [p.position.x, p.position.y].map(f64::to_bits);
                [x, y, c, s, u64::from(p.turns.cast_unsigned())]
            })
            .collect()
    };
    assert_eq!(pose_bits(&poses_paired), pose_bits(&poses_apart));
    assert!(poses_paired[4] != crate::types::Pose::default());
    assert_eq!(poses_paired[1], crate::types::Pose::default());
    let lambda_bits = |s: &DirectSystem| s.lambda.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(lambda_bits(&paired), lambda_bits(&apart));
    paired.factor(Islands::All, &inverse);
    assert!(paired.factored_since(count));
}

/// Which super nodes close loops, and which islands are solved exactly: a ring closes
/// one loop; a hold on the ground is its island's root, and a second one closes a loop
/// through the ground when it hangs below a body node (a body held by three super nodes
/// of the tree), which its elimination holds still, and not otherwise (a chain pinned at
/// both ends stays a tree); an island with more loop rows than [`MAX_LOOP_ROWS`] stays
/// with the sweeps.
#[test]
fn which_islands_with_loops_are_solved_exactly() {
    let closing = |spec: &[([u32; 2], usize)]| {
        let mut dynamic = vec![true; 10];
        dynamic[9] = false;
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&two_body_links(spec), &dynamic);
        assert!(slots.iter().all(|s| s.is_some() == slots[0].is_some()));
        let roots = system.supers.iter().filter(|s| s.root).count();
        assert!(slots[0].is_none() || roots == 1, "one root");
        let held = system.supers.iter().any(|s| s.body_count == 1 && s.root);
        let grounded = spec.iter().any(|(b, _)| b.contains(&9));
        assert!(slots[0].is_none() || held == grounded, "a hold is the root");
        slots[0].map(|_| system.supers.iter().filter(|s| s.closes_loop).count())
    };
    let ring = [([0, 1], 2), ([1, 2], 2), ([2, 0], 2)];
    assert_eq!(closing(&ring), Some(1));
    assert_eq!(closing(&[ring[0], ring[1], ring[2], ([9, 0], 2)]), Some(1));
    let both_ends = [([9, 0], 2), ([0, 1], 2), ([1, 2], 2), ([9, 2], 2)];
    assert_eq!(closing(&both_ends), Some(0));
    let hub = [([9, 0], 2), ([0, 1], 2), ([1, 2], 2), ([1, 3], 2)];
    assert_eq!(closing(&hub), Some(0));
    assert_eq!(
        closing(&[hub[0], hub[1], hub[2], hub[3], ([9, 1], 2)]),
        Some(1)
    );
    assert_eq!(
        closing(&[hub[0], hub[1], hub[2], hub[3], ([9, 3], 1)]),
        Some(1)
    );
    // Held at the hub alone, the hub's hold is the root whichever constraint comes first.
    assert_eq!(closing(&[hub[1], hub[2], hub[3], ([9, 1], 2)]), Some(0));
    // A ladder of 34 rungs closes 33 loops of 2 rows: 66 > MAX_LOOP_ROWS.
    let ladder = |rungs: u32| -> Vec<([u32; 2], usize)> {
        let mut spec = vec![([0, 1], 2)];
        for r in 1..rungs {
            let (a, b) = (2 * r, 2 * r + 1);
            spec.extend([([a - 2, a], 2), ([a - 1, b], 2), ([a, b], 2)]);
        }
        spec
    };
    let exact_wide = |spec: &[([u32; 2], usize)], bodies: usize| {
        let mut system = DirectSystem::default();
        let slots = system.rebuild(&two_body_links(spec), &vec![true; bodies]);
        slots[0].is_some()
    };
    assert!(exact_wide(&ladder(33), 66));
    assert!(!exact_wide(&ladder(34), 68));
}

#[test]
fn a_velocity_keeps_what_its_rounding_left() {
    // A change below half an ulp of the velocity, a thousand times: rounded each time, it
    // would be lost every time.
    let mut v = Velocity {
        linear: glam::Vec2::new(1.0, -3.0),
        angular: 2.0,
    };
    let mut kept = KeptRounding::default();
    for _ in 0..1000 {
        add_kept(&mut v, &mut kept, [1e-9, -1e-9, 1e-9]);
    }
    let exact: [f64; 3] = [1.0 + 1e-6, -3.0 - 1e-6, 2.0 + 1e-6];
    for (got, want) in [v.linear.x, v.linear.y, v.angular].into_iter().zip(exact) {
        let ulp = f64::from(f32::EPSILON) * want.abs();
        assert!((f64::from(got) - want).abs() <= ulp, "{got} against {want}");
    }
    // A sum gone out of `f32`'s range keeps nothing to poison the next update.
    let mut v = Velocity {
        linear: glam::Vec2::new(f32::MAX, 0.0),
        angular: 0.0,
    };
    let mut kept = KeptRounding::default();
    add_kept(&mut v, &mut kept, [1e39, 0.0, 0.0]);
    assert!(v.linear.x.is_infinite());
    assert_eq!(kept.left, [0.0; 3]);
    // A velocity set anew in between (a projection undone) drops what was kept: left by a
    // correction of 1e10, it would spin the body by hundreds.
    let mut v = Velocity::default();
    let mut kept = KeptRounding::default();
    add_kept(&mut v, &mut kept, [0.0, 0.0, 1e10 + 300.0]);
    assert_ne!(kept.left[2], 0.0);
    v.angular = 0.0;
    add_kept(&mut v, &mut kept, [0.0; 3]);
    assert_eq!(v.angular, 0.0);
}
