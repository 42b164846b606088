//! Island building: the tree of each acyclic island, and which islands a pass covers.

use super::*;

impl DirectSystem {
    /// Whether any island is solved directly.
    pub(crate) fn is_empty(&self) -> bool {
        self.supers.is_empty()
    }

    /// Rebuilds the islands from every active constraint (`links`) and returns, aligned
    /// with `links`, where each constraint of an acyclic island lives (`None`: solved
    /// iteratively). Allocates; called only when the topology changed.
    pub(crate) fn rebuild(&mut self, links: &[Link], dynamic: &[bool]) -> Vec<Option<DirectSlot>> {
        *self = Self::default();
        let mut assignment = vec![None; links.len()];
        let is_dynamic = |b: u32| dynamic.get(b as usize).copied().unwrap_or(false);

        // Distinct dynamic bodies of each link, sorted (the super node key).
        let keys: Vec<([u32; MAX_BODIES], usize)> = links
            .iter()
            .map(|l| {
                let mut key = [NONE; MAX_BODIES];
                let mut n = 0;
                for &b in &l.bodies[..l.slots] {
                    if is_dynamic(b) && !key[..n].contains(&b) {
                        key[n] = b;
                        n += 1;
                    }
                }
                key[..n].sort_unstable();
                (key, n)
            })
            .collect();

        // Islands: union-find over dynamic bodies.
        let mut parent: Vec<u32> = (0..dynamic.len() as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for (key, n) in &keys {
            for w in key[..*n].windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                if a != b {
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    parent[hi as usize] = lo;
                }
            }
        }

        // Super nodes, in order of first appearance.
        let mut super_of: HashMap<[u32; MAX_BODIES], u32> = HashMap::new();
        let mut super_links: Vec<Vec<usize>> = Vec::new();
        let mut super_keys: Vec<([u32; MAX_BODIES], usize)> = Vec::new();
        for (l, (key, n)) in keys.iter().enumerate() {
            if *n == 0 {
                continue;
            }
            let s = *super_of.entry(*key).or_insert_with(|| {
                super_links.push(Vec::new());
                super_keys.push((*key, *n));
                (super_keys.len() - 1) as u32
            });
            super_links[s as usize].push(l);
        }

        // A spanning forest of super nodes: each joins bodies no earlier one joined, those
        // with more bodies first (a super node cannot join only some of its bodies, so a
        // wide one left for last could find its bodies joined and a body of its own
        // reached by none); the others close loops.
        let mut by_width: Vec<usize> = (0..super_keys.len()).collect();
        by_width.sort_by_key(|&s| std::cmp::Reverse(super_keys[s].1));
        let mut forest: Vec<u32> = (0..dynamic.len() as u32).collect();
        let mut spanned = vec![false; dynamic.len()];
        let mut closes_loop = vec![false; super_keys.len()];
        for s in by_width {
            let (key, n) = &super_keys[s];
            let mut roots = [NONE; MAX_BODIES];
            for (r, &b) in roots.iter_mut().zip(&key[..*n]) {
                *r = find(&mut forest, b);
            }
            let joined = (1..*n).any(|i| roots[..i].contains(&roots[i]));
            if joined {
                closes_loop[s] = true;
                continue;
            }
            for &b in &key[..*n] {
                spanned[b as usize] = true;
            }
            for &r in &roots[1..*n] {
                let (a, b) = (find(&mut forest, roots[0]), r);
                let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                forest[hi as usize] = lo;
            }
        }

        // Each island's tree hangs from a root, eliminated last: its first super node of
        // one body (a hold on the ground) where it has one, else its first. Bodies held by
        // three or more of the forest's super nodes stay nodes of the tree, and the super
        // nodes below such a body are eliminated with it held still. A hold on the ground
        // below it would then close a loop through the ground that the elimination does
        // not see: rows that meet nothing free (a pin of that very body has its
        // compliance alone for its block), whose inverse leaves the tree's solve a
        // relative error of 1/compliance (1e-9: a stiff row's residual is then 1e-7 of
        // the load, and loops solved through the tree's responses amplify it until the
        // island fails). So every hold on the ground below a body node closes a loop, as
        // it does physically, and is solved through the Schur complement with the others.
        let mut forest_degree = vec![0u32; dynamic.len()];
        let mut forest_supers: Vec<Vec<u32>> = vec![Vec::new(); dynamic.len()];
        let mut roots: HashMap<u32, usize> = HashMap::new();
        for (s, (key, n)) in super_keys.iter().enumerate() {
            if closes_loop[s] {
                continue;
            }
            for &b in &key[..*n] {
                forest_degree[b as usize] += 1;
                forest_supers[b as usize].push(s as u32);
            }
            let root = roots.entry(find(&mut parent, key[0])).or_insert(s);
            if *n == 1 && super_keys[*root].1 != 1 {
                *root = s;
            }
        }
        let mut is_root = vec![false; super_keys.len()];
        for &s in roots.values() {
            is_root[s] = true;
        }
        let below_body_node = hang(&super_keys, &is_root, &forest_supers, &forest_degree);
        for (s, (_, n)) in super_keys.iter().enumerate() {
            if *n == 1 && !closes_loop[s] && below_body_node[s] {
                closes_loop[s] = true;
            }
        }

        // Per island: count its nodes and loop rows, check the sizes.
        #[derive(Default, Clone, Copy)]
        struct Census {
            supers: usize,
            loop_rows: usize,
            too_large: bool,
            unspanned: bool,
        }
        let mut census: HashMap<u32, Census> = HashMap::new();
        for (b, &d) in dynamic.iter().enumerate() {
            if d {
                let root = find(&mut parent, b as u32);
                census.entry(root).or_default().unspanned |= !spanned[b];
            }
        }
        for (s, (key, _)) in super_keys.iter().enumerate() {
            let root = find(&mut parent, key[0]);
            let c = census.entry(root).or_default();
            c.supers += 1;
            let rows: usize = super_links[s].iter().map(|&l| links[l].rows).sum();
            c.too_large |= rows > MAX_ROWS;
            if closes_loop[s] {
                c.loop_rows += rows;
            }
        }
        let acyclic = |c: &Census| {
            !c.too_large && !c.unspanned && c.supers > 0 && c.loop_rows <= MAX_LOOP_ROWS
        };

        // Lay out the super nodes of acyclic islands.
        let (mut rows_total, mut jac_total, mut gamma_total) = (0, 0, 0);
        for (s, (key, n)) in super_keys.iter().enumerate() {
            let root = find(&mut parent, key[0]);
            if !acyclic(&census[&root]) {
                continue;
            }
            let mut row = 0usize;
            for &l in &super_links[s] {
                let mut positions = [u8::MAX; MAX_BODIES];
                for (slot, b) in links[l].bodies[..links[l].slots].iter().enumerate() {
                    if let Some(p) = key[..*n].iter().position(|k| k == b) {
                        positions[slot] = p as u8;
                    }
                }
                assignment[l] = Some(DirectSlot {
                    node: self.supers.len() as u32,
                    row: row as u8,
                    positions,
                });
                row += links[l].rows;
            }
            self.supers.push(SuperNode {
                rows: row,
                bodies: *key,
                body_count: *n,
                row_offset: rows_total,
                jacobian_offset: jac_total,
                gamma_offset: gamma_total,
                from_mass: super_links[s].len() == 1 && !closes_loop[s],
                closes_loop: closes_loop[s],
                root: is_root[s],
            });
            rows_total += row;
            jac_total += row * n * 3;
            gamma_total += row * row;
        }
        self.bias = std::array::from_fn(|_| vec![0.0; rows_total]);
        self.lambda = vec![0.0; rows_total];
        // Filled only by some substeps (SHAKE, a guard's restart), possibly many steps
        // after this rebuild, which would grow them there.
        self.start_error = Vec::with_capacity(rows_total);
        self.saved_lambda = Vec::with_capacity(rows_total);
        self.jacobian = vec![0.0; jac_total];
        self.gamma = vec![0.0; gamma_total];
        self.mass = vec![0.0; gamma_total];
        self.reset_rows();
        self.build_tree(dynamic.len());
        assignment
    }

    /// The elimination order of the reduced tree: breadth-first from each island's root
    /// super node, reversed so that every node comes before its parent.
    fn build_tree(&mut self, body_count: usize) {
        let mut supers_at: Vec<Vec<u32>> = vec![Vec::new(); body_count];
        for (i, s) in self.supers.iter().enumerate() {
            if s.closes_loop {
                continue;
            }
            for &b in &s.bodies[..s.body_count] {
                supers_at[b as usize].push(i as u32);
            }
        }
        self.degree = supers_at.iter().map(|s| s.len().min(255) as u8).collect();
        for s in &mut self.supers {
            let degree = &self.degree;
            s.from_mass &= s.bodies[..s.body_count]
                .iter()
                .all(|&b| degree[b as usize] <= 2);
        }
        let position = |s: &SuperNode, b: u32| {
            s.bodies[..s.body_count]
                .iter()
                .position(|&x| x == b)
                .unwrap_or(0)
        };
        let mut visited_body = vec![false; body_count];
        let mut visited_super = vec![false; self.supers.len()];
        let mut order: Vec<TreeNode> = Vec::new();
        let node = |kind, size, parent, edge| TreeNode {
            kind,
            size,
            parent,
            edge,
            dof_offset: 0,
            block_offset: 0,
            coupling_offset: 0,
        };
        let mut islands = Vec::new();
        let (mut island_bodies, mut island_body_ranges) = (Vec::new(), Vec::new());
        for start in 0..self.supers.len() {
            if !self.supers[start].root {
                continue;
            }
            let island_start = order.len();
            let bodies_start = island_bodies.len();
            visited_super[start] = true;
            order.push(node(
                NodeKind::Super(start as u32),
                self.supers[start].rows,
                NONE,
                Edge::Root,
            ));
            let mut head = island_start;
            while head < order.len() {
                match order[head].kind {
                    NodeKind::Body(b) => {
                        for &s in &supers_at[b as usize] {
                            if !visited_super[s as usize] {
                                visited_super[s as usize] = true;
                                let sn = &self.supers[s as usize];
                                let edge = Edge::Body(position(sn, b));
                                order.push(node(NodeKind::Super(s), sn.rows, head as u32, edge));
                            }
                        }
                    }
                    NodeKind::Super(s) => {
                        let sn = self.supers[s as usize];
                        for (p, &b) in sn.bodies[..sn.body_count].iter().enumerate() {
                            if visited_body[b as usize] {
                                continue;
                            }
                            visited_body[b as usize] = true;
                            island_bodies.push(b);
                            match supers_at[b as usize].len() {
                                0 | 1 => {}
                                2 => {
                                    let other = supers_at[b as usize]
                                        .iter()
                                        .copied()
                                        .find(|&t| t != s)
                                        .unwrap_or(s);
                                    if !visited_super[other as usize] {
                                        visited_super[other as usize] = true;
                                        let on = &self.supers[other as usize];
                                        let edge = Edge::Shared {
                                            body: b,
                                            child: position(on, b),
                                            parent: p,
                                        };
                                        order.push(node(
                                            NodeKind::Super(other),
                                            on.rows,
                                            head as u32,
                                            edge,
                                        ));
                                    }
                                }
                                _ => order.push(node(
                                    NodeKind::Body(b),
                                    3,
                                    head as u32,
                                    Edge::Body(p),
                                )),
                            }
                        }
                    }
                }
                head += 1;
            }
            order[island_start..].reverse();
            let len = order.len();
            // Reversing [island_start, len) sends position a to island_start + len − 1 − a.
            for n in &mut order[island_start..] {
                if n.parent != NONE {
                    n.parent = (island_start + len - 1 - n.parent as usize) as u32;
                }
            }
            islands.push(island_start..len);
            island_body_ranges.push(bodies_start..island_bodies.len());
        }
        let mut island_of = vec![0u32; self.supers.len()];
        let mut body_island = vec![NONE; body_count];
        for (k, range) in island_body_ranges.iter().enumerate() {
            for &b in &island_bodies[range.clone()] {
                body_island[b as usize] = k as u32;
            }
        }
        for (s, sn) in self.supers.iter().enumerate() {
            // Every body of an island is in its tree, a loop-closing super node's too.
            island_of[s] = body_island[sn.bodies[0] as usize];
        }
        self.marked = vec![false; islands.len()];
        self.carry = vec![Carry::None; islands.len()];
        self.carried_masses = vec![InverseMass::default(); body_count];
        self.reach = vec![0.0; islands.len()];
        self.pending = vec![false; islands.len()];
        self.active = vec![true; islands.len()];
        self.islands = islands;
        self.island_of = island_of;
        self.body_span = island_bodies
            .iter()
            .map(|&b| b as usize + 1)
            .max()
            .unwrap_or(0);
        self.island_bodies = island_bodies;
        self.island_body_ranges = island_body_ranges;
        self.delta = vec![[0.0; 3]; body_count];
        self.velocity_rounding = vec![KeptRounding::default(); body_count];
        self.paired_delta = vec![[0.0; 3]; body_count];
        debug_assert!(
            order
                .iter()
                .enumerate()
                .all(|(i, n)| n.parent == NONE || n.parent as usize > i),
            "every node is eliminated before its parent"
        );
        let (mut dofs, mut blocks, mut couplings) = (0, 0, 0);
        for i in 0..order.len() {
            let parent_size = if order[i].parent == NONE {
                0
            } else {
                order[order[i].parent as usize].size
            };
            let n = &mut order[i];
            n.dof_offset = dofs;
            n.block_offset = blocks;
            n.coupling_offset = couplings;
            dofs += n.size;
            blocks += n.size * n.size;
            couplings += parent_size * n.size;
        }
        let parent_size = |n: &TreeNode| {
            if n.parent == NONE {
                0
            } else {
                order[n.parent as usize].size
            }
        };
        let (mut runs, mut island_runs) = (Vec::<Run>::new(), Vec::new());
        for range in &self.islands {
            let first = runs.len();
            for i in range.clone() {
                let (size, parent_size) = (order[i].size, parent_size(&order[i]));
                let same = |run: &Run| run.size == size && run.parent_size == parent_size;
                match runs[first..].last_mut() {
                    Some(run) if same(run) => run.nodes.end = i + 1,
                    _ => runs.push(Run {
                        nodes: i..i + 1,
                        size,
                        parent_size,
                    }),
                }
            }
            island_runs.push(first..runs.len());
        }
        self.runs = runs;
        self.island_runs = island_runs;
        self.nodes = order;
        self.blocks = vec![0.0; blocks];
        self.inverses = vec![0.0; blocks];
        self.gains = vec![0.0; couplings];
        self.rhs = vec![0.0; dofs];
        self.solution = vec![0.0; dofs];
        self.paired_rhs = vec![0.0; dofs];
        self.paired_solution = vec![0.0; dofs];
        self.build_loops(body_count);
    }

    /// Forgets every mark.
    pub(crate) fn clear_marks(&mut self) {
        self.marked.fill(false);
        self.pending.fill(false);
    }

    /// Marks the island of the constraint at `slot` for the work after the next
    /// [`promote`](Self::promote).
    pub(crate) fn mark(&mut self, slot: &DirectSlot) {
        self.pending[self.island_of[slot.node as usize] as usize] = true;
    }

    /// Marks (current, not pending) the islands `which` flags.
    pub(crate) fn mark_islands(&mut self, which: &[bool]) {
        self.marked.copy_from_slice(which);
    }

    /// Makes the pending marks current; returns whether any island is marked.
    pub(crate) fn promote(&mut self) -> bool {
        std::mem::swap(&mut self.marked, &mut self.pending);
        self.pending.fill(false);
        self.marked.iter().any(|&m| m)
    }

    /// Whether the island of the constraint at `slot` is marked.
    pub(crate) fn is_marked(&self, slot: &DirectSlot) -> bool {
        self.marked[self.island_of[slot.node as usize] as usize]
    }

    /// The number of acyclic islands.
    pub(crate) fn island_count(&self) -> usize {
        self.islands.len()
    }

    /// The island of the constraint at `slot`.
    pub(crate) fn island(&self, slot: &DirectSlot) -> usize {
        self.island_of[slot.node as usize] as usize
    }

    /// Writes the island of every body into `out` (`u32::MAX` for a body in none).
    pub(crate) fn body_islands(&self, body_count: usize, out: &mut Vec<u32>) {
        out.clear();
        out.resize(body_count, NONE);
        for (sn, &island) in self.supers.iter().zip(&self.island_of) {
            for &b in &sn.bodies[..sn.body_count] {
                out[b as usize] = island;
            }
        }
    }

    /// Restricts every later factorisation, solve and projection to the islands `which`
    /// flags (all of them after a rebuild).
    pub(crate) fn set_active(&mut self, which: &[bool]) {
        self.active.copy_from_slice(which);
    }

    /// Whether the island of the constraint at `slot` is active.
    pub(crate) fn is_active(&self, slot: &DirectSlot) -> bool {
        self.active[self.island_of[slot.node as usize] as usize]
    }

    /// Whether `which` covers island `k`.
    pub(super) fn covers(&self, which: Islands, k: usize) -> bool {
        self.active[k] && (which == Islands::All || self.marked[k])
    }
}

/// Per super node, whether it hangs below a body node of its island's tree (a body held
/// by three or more forest super nodes) rooted at the super nodes `is_root` marks: a
/// breadth-first walk from each root, a super node reached through a body below one that
/// is, or through a body node.
fn hang(
    super_keys: &[([u32; MAX_BODIES], usize)],
    is_root: &[bool],
    forest_supers: &[Vec<u32>],
    forest_degree: &[u32],
) -> Vec<bool> {
    let mut below = vec![false; super_keys.len()];
    let mut reached = is_root.to_vec();
    let mut body_reached = vec![false; forest_supers.len()];
    let mut queue: Vec<u32> = (0..super_keys.len() as u32)
        .filter(|&s| is_root[s as usize])
        .collect();
    let mut head = 0;
    while let Some(&s) = queue.get(head) {
        head += 1;
        let (key, n) = &super_keys[s as usize];
        for &b in &key[..*n] {
            if std::mem::replace(&mut body_reached[b as usize], true) {
                continue;
            }
            let held = below[s as usize] || forest_degree[b as usize] > 2;
            for &t in &forest_supers[b as usize] {
                if !std::mem::replace(&mut reached[t as usize], true) {
                    below[t as usize] = held;
                    queue.push(t);
                }
            }
        }
    }
    below
}
